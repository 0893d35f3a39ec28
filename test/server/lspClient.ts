import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { REPO_ROOT, testCacheHome } from '../helpers';

/** The real language server in its own process, spoken to over stdio (what any LSP client does). */
export class ServerProcess {
  readonly connection: MessageConnection;
  private readonly child: ChildProcess;
  readonly diagnostics = new Map<
    string,
    {
      version?: number;
      diagnostics: {
        code: string;
        message: string;
        /** 1 error, 2 warning, 3 information, 4 hint (LSP's DiagnosticSeverity). */
        severity?: number;
        range: { start: { line: number; character: number }; end: { line: number; character: number } };
        data: unknown;
      }[];
    }
  >();
  private diagnosticWaiters: (() => void)[] = [];

  /**
   * `env`: more of the server's environment (the session key a client hands over, see sealedSecret.ts); `root`: the
   * installed copy whose dist/server.js runs (default: this clone).
   */
  constructor(env: Record<string, string> = {}, root = REPO_ROOT) {
    this.child = spawn(process.execPath, [path.join(root, 'dist', 'server.js'), '--stdio'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      // As CI runs it: colour forced on, so any terminal formatting that leaked into a response would show.
      env: { ...process.env, FORCE_COLOR: '1', CI: 'true', XDG_CACHE_HOME: testCacheHome(), ...env },
    });
    this.connection = createMessageConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    this.connection.onNotification('textDocument/publishDiagnostics', (params: { uri: string; version?: number; diagnostics: never[] }) => {
      this.diagnostics.set(params.uri, params);
      for (const wake of this.diagnosticWaiters.splice(0)) wake();
    });
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onNotification('$/progress', () => undefined);
    this.connection.listen();
  }

  async initialize(initializationOptions: object): Promise<unknown> {
    const result = await this.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      initializationOptions,
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  open(uri: string, languageId: string, text: string, version = 1): Promise<void> {
    return this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
  }

  /** Resolves with the diagnostics of `uri` once a publish for `version` (or any, if omitted) arrives. */
  async diagnosticsFor(uri: string, version?: number, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const current = this.diagnostics.get(uri);
      if (current && (version === undefined || current.version === version)) return current.diagnostics;
      if (Date.now() > deadline) throw new Error(`no diagnostics for ${uri} (version ${version})`);
      await new Promise<void>((resolve) => {
        this.diagnosticWaiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  async stop(): Promise<void> {
    try {
      await this.connection.sendRequest('shutdown');
      await this.connection.sendNotification('exit');
    } catch {
      // already gone
    }
    this.connection.dispose();
    this.child.kill();
  }
}
