/** What holds for the server's whole life: its start options, settings, trust, secrets and step progress. */
import { NotificationType, ProgressType, RequestType } from 'vscode-languageserver-protocol';
import type { SealedSecret } from '../sealedSecret';
import type { VesLensSettings } from '../settings';
import type { Dataset } from './dataset';

/** What the client starts the server with (LSP's initializationOptions). */
export interface InitializationOptions {
  dataset?: Dataset | null;
  trusted?: boolean;
  settings?: Partial<VesLensSettings>;
  /** The extension's own storage (globalStorageUri): the embeddings cache lives under it. */
  storageDir?: string;
}

/** The secrets the server may ask the client for, each a SecretStorage entry of the extension's. */
export type SecretName = 'embeddingsApiKey' | 'judgeApiKey' | 'postgresPassword';

export interface SecretParams {
  name: SecretName;
  /**
   * What the secret is for, where one name holds a secret per thing: the PostgreSQL password is kept per server
   * URL (settings.ts's passwordScope), so it is only ever sent to the server it was given for.
   */
  scope?: string;
}

/**
 * Server → client: a secret when the server needs it (the embeddings API key for a score, the PostgreSQL password
 * when it connects), sealed with the session key the client put in the server's environment (see sealedSecret.ts);
 * null when none is stored.
 */
export const SecretRequest = new RequestType<SecretParams, SealedSecret | null, void>('vesLens/secret');

/** Client → server: the settings, at start and whenever they change (they take effect at once). */
export const SettingsNotification = new NotificationType<VesLensSettings>('vesLens/settings');
/** Client → server: workspace trust (untrusted workspaces never run SQL). */
export const TrustNotification = new NotificationType<{ trusted: boolean }>('vesLens/trust');

/** Progress of a Score, Judge or Time request, as a line of text. */
export const StepProgress = new ProgressType<{ message: string }>();
