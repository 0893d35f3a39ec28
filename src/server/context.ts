/**
 * What every feature provider of the server shares: the host (documents, log, secrets, chat), the attached
 * dataset, the settings, workspace trust and the query limits they imply. One object, owned by service.ts and
 * handed to each provider, so no provider reaches into another.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { TimingMode } from '../core/eval/types';
import type { SqlDialect } from '../core/sql/statements';
import { ChatCompletionParams, ChatCompletionResult, JudgeConsentParams, SecretName, VesLensErrorCodes } from '../shared/protocol';
import { DEFAULT_SETTINGS, VesLensSettings } from '../shared/settings';
import { DatasetState } from '../app/datasetOpen';
import { editorText } from './editorText';
import { UserError } from './errors';

export interface DocumentSource {
  get(uri: string): TextDocument | undefined;
  all(): TextDocument[];
}

export interface ServiceHost {
  documents: DocumentSource;
  /** The server's log (the client shows it in its Output channel). */
  log(message: string): void;
  /** Folder of the rules' docs (docs/rules), linked from each diagnostic's code. */
  docsRoot: string;
  /**
   * A secret from the client's SecretStorage (the embeddings API key; the PostgreSQL password of the server URL
   * `scope`), asked for only when needed; absent: none.
   */
  secret?(name: SecretName, scope?: string): Promise<string | undefined>;
  /**
   * Completions from the client's vscode.lm models (the Judge's `vscode-lm` provider), rejecting with the client's
   * `{ code, message }` (ChatCompletionErrors) or on cancellation; absent: that provider is unavailable.
   */
  chat?(params: ChatCompletionParams, signal?: AbortSignal): Promise<ChatCompletionResult>;
  /** The person's consent to send the judge's prompts to an endpoint (JudgeConsentRequest); absent: not asked. */
  consent?(endpoint: JudgeConsentParams, signal?: AbortSignal): Promise<boolean>;
}

/** The bounds every query of a request runs within (settings vesLens.timeoutSeconds and vesLens.maxRows). */
export interface QueryLimits {
  timeoutMs: number;
  maxRows: number;
}

export class ServerContext {
  /** The attached dataset, its messages in the editor's words. */
  readonly state = new DatasetState(editorText);
  settings: VesLensSettings = { ...DEFAULT_SETTINGS };
  trusted = false;
  /** The extension's storage folder (the embeddings cache lives under it). */
  storageDir?: string;

  constructor(readonly host: ServiceHost) {}

  get documents(): DocumentSource {
    return this.host.documents;
  }

  log(message: string): void {
    this.host.log(message);
  }

  get limits(): QueryLimits {
    return { timeoutMs: this.settings.timeoutSeconds * 1000, maxRows: this.settings.maxRows };
  }

  /** The SQL dialect of the dataset's engine (vesLens.engine): how statements are read, refused and laid out. */
  get dialect(): SqlDialect {
    return this.settings.engine;
  }

  /** How a correct pair is timed (settings vesLens.timing.mode and vesLens.timing.iterations). */
  get timing(): { timing: TimingMode; officialIterations: number } {
    return { timing: this.settings.timingMode, officialIterations: this.settings.timingIterations };
  }

  /** Untrusted workspaces never run SQL. */
  requireTrust(): void {
    if (!this.trusted) {
      throw new UserError('VES Lens runs SQL only in trusted workspaces: trust this workspace to score, explain or verify.');
    }
  }

  /** A dataset with questions, before `doing` (evaluating a prediction file, auditing its gold SQL). */
  requireQuestions(doing: string): void {
    const { dataset, questions } = this.state;
    if (!dataset) throw new UserError(`no dataset is attached: attach a BIRD dataset before ${doing}`, VesLensErrorCodes.noDataset);
    if (questions.length === 0) {
      const message = `the attached question file has no questions (${dataset.questionsFile}): attach a BIRD question file`;
      throw new UserError(message, VesLensErrorCodes.noDataset);
    }
  }
}
