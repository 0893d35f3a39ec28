/** The dataset slice: attaching a BIRD dataset, its questions, and a question's read-only document. */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { Dataset, DatasetSummary, QuestionInfo } from '../../app/datasetOpen';

// The dataset, what runs its SQL, its summary and a question, as app/datasetOpen.ts holds them.
export type { Dataset, DatasetSummary, EngineSummary, QuestionInfo } from '../../app/datasetOpen';

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
