// The one handle a page gets on VS Code's webview API, typed by what the page sends and what it keeps.
import type { PageReady } from '../../shared/webviewMessages';

/** VS Code's webview API as a page sees it; acquireVsCodeApi may be called only once per page. */
interface VsCodeWebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeWebviewApi;

/** A page's side of the conversation: what it may post to the extension, and the state VS Code keeps for it. */
export interface PageChannel<Request, State extends object> {
  post(request: Request | PageReady): void;
  state(): Partial<State>;
  /** Merged into the saved state, which survives a hidden panel, a reload and a restore. */
  saveState(patch: Partial<State>): void;
}

let vscodeApi: VsCodeWebviewApi | undefined;

/** The page's channel; every module of a page may ask for it (the API is acquired once). */
export function pageChannel<Request, State extends object>(): PageChannel<Request, State> {
  vscodeApi ??= acquireVsCodeApi();
  const api = vscodeApi;
  return {
    post: (request) => api.postMessage(request),
    state: () => (api.getState() as Partial<State> | undefined) ?? {},
    saveState: (patch) => api.setState({ ...((api.getState() as object | undefined) ?? {}), ...patch }),
  };
}

/** What a panel page keeps: the last message it drew (and whatever else the page adds). */
export interface RememberedMessage<Message> {
  message: Message;
}

export interface PanelPage<Message, Request, State extends object> extends PageChannel<Request, State> {
  remember(message: Message): void;
  /** Draws the remembered message again; call it once the page's own state is set up. */
  restore(): void;
}

/**
 * A panel page (src/extension/panels/panel.ts): it listens for its messages, draws the last one again when VS
 * Code restores the panel after a reload (the extension's WebviewPanelSerializer gives it the same page), and
 * says `ready` once its script has run, since the extension holds its messages until the page can hear them.
 */
export function panelPage<Message, Request, State extends RememberedMessage<Message> = RememberedMessage<Message>>(
  handle: (message: Message, restored: boolean) => void,
  channel: PageChannel<Request, State> = pageChannel<Request, State>(),
): PanelPage<Message, Request, State> {
  window.addEventListener('message', (event: MessageEvent<Message>) => handle(event.data, false));
  // The page's bundle is deferred, so it runs before DOMContentLoaded: nothing posted after `ready` is missed.
  document.addEventListener('DOMContentLoaded', () => channel.post({ type: 'ready' }));
  return {
    ...channel,
    remember: (message) => channel.saveState({ message } as Partial<State>),
    restore: () => {
      const saved = channel.state().message;
      if (saved) handle(saved, true);
    },
  };
}
