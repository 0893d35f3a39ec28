/** The dataset slice: attaching a BIRD dataset, its questions, and a question's read-only document. */
import { RequestType, RequestType0 } from 'vscode-languageserver-protocol';

export interface Dataset {
  /** Absolute paths. */
  questionsFile: string;
  goldFile?: string;
  dbRoot: string;
}

export interface DatasetSummary {
  dataset: Dataset | null;
  sqlite: string;
  questionCount: number;
  /** db_id → whether its file is present, and how many questions use it. */
  databases: { dbId: string; present: boolean; questions: number }[];
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
export const QuestionsRequest = new RequestType<{ dbId?: string }, QuestionInfo[], void>('vesLens/questions');
/** The read-only document of one question: its text, evidence and gold SQL (formatted). */
export const QuestionDocumentRequest = new RequestType<{ questionId: number | string }, string, void>('vesLens/questionDocument');
