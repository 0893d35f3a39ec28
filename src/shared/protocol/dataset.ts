/** The dataset slice: attaching a BIRD dataset, its questions, and a question's read-only document. */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { EngineDescription } from '../../core/db/source';

export interface Dataset {
  /** Absolute paths. */
  questionsFile: string;
  goldFile?: string;
  dbRoot: string;
}

/** What runs the attached dataset's SQL, as the status bar and the panels name it (never a password). */
export interface EngineSummary extends EngineDescription {
  /** One line: `SQLite 3.45.1`, `PostgreSQL 15.10 (server postgresql://user@host:5432/bird, one-database layout)`. */
  line: string;
}

export interface DatasetSummary {
  dataset: Dataset | null;
  sqlite: string;
  /** What runs the SQL (the vesLens.engine setting); null while none is attached or when it cannot be reached. */
  engine: EngineSummary | null;
  /**
   * Why the engine cannot run the SQL (a server that does not answer, a password refused, a URL that is not one),
   * with what to do; the dataset stays attached, and every feature that needs a database says the same.
   */
  engineError?: string;
  questionCount: number;
  /**
   * db_id → whether its database is there, how many questions use it, its SQLite file where BIRD's layout puts it
   * (`<db_root>/<db_id>/<db_id>.sqlite`), and on another engine where it is looked for (its schema, database or
   * tables, named without the password).
   */
  databases: { dbId: string; present: boolean; questions: number; file: string; location?: string }[];
  /** Input problems of the files (each naming file and key or line). */
  problems: string[];
  /** Why the dataset could not be used at all (a question file that is no question file...), naming the file and what was expected. */
  error?: string;
}

export interface QuestionInfo {
  index: number;
  questionId: number | string;
  dbId: string;
  difficulty: string;
  question: string;
  evidence: string;
  gold: string;
}

/** The URI scheme of the read-only question documents (`ves-lens-question:/717.sql`). */
export const QUESTION_SCHEME = 'ves-lens-question';

export const SetDatasetRequest = new RequestType<Dataset | null, DatasetSummary, void>('vesLens/setDataset');
export const DatasetSummaryRequest = new RequestType0<DatasetSummary, void>('vesLens/datasetSummary');
/** Client → server: connect to the dataset's databases again (a PostgreSQL password was set or cleared). */
export const ReconnectRequest = new RequestType0<DatasetSummary, void>('vesLens/reconnect');
/** Server → client: the summary changed without a request of the client's (the engine settings changed). */
export const DatasetChangedNotification = new NotificationType<DatasetSummary>('vesLens/datasetChanged');
export const QuestionsRequest = new RequestType<{ dbId?: string }, QuestionInfo[], void>('vesLens/questions');
/** The read-only document of one question: its text, evidence and gold SQL (formatted). */
export const QuestionDocumentRequest = new RequestType<{ questionId: number | string }, string, void>('vesLens/questionDocument');
