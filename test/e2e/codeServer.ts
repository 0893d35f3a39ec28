import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers';

export const CODE_SERVER = path.join(REPO_ROOT, '.vscode-test', 'code-server', 'node_modules', '.bin', 'code-server');
export const CHROMIUM = '/usr/bin/chromium';

/** Why the editor tests cannot run here (skipped on a developer machine; in CI, .ci/run installs both). */
export function editorMissing(): string | false {
  const missing = [CODE_SERVER, CHROMIUM].filter((file) => !fs.existsSync(file));
  if (missing.length === 0) return false;
  const reason = `not installed: ${missing.join(', ')} (run scripts/setup-code-server.sh)`;
  if (process.env.CI) throw new Error(reason);
  return reason;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface RunningCodeServer {
  url: string;
  port: number;
  home: string;
  stop(): Promise<void>;
}

/**
 * The real VS Code workbench (code-server 4.100.3) on loopback, in its own process group, with fresh HOME,
 * XDG and TMPDIR folders, optionally with a packaged .vsix installed.
 */
export async function startCodeServer(options: {
  workspace: string;
  vsix?: string;
  env?: Record<string, string>;
  settings?: object;
}): Promise<RunningCodeServer> {
  const home = tempDir('ves-lens-code-server-');
  const userData = path.join(home, 'user-data');
  const extensions = path.join(home, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'extensions.ignoreRecommendations': true,
      'telemetry.telemetryLevel': 'off',
      ...options.settings,
    }),
  );
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    TMPDIR: fs.mkdtempSync(path.join(home, 'tmp-')),
    ...options.env,
  };
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  if (options.vsix) {
    const install = spawnSync(CODE_SERVER, [...common, '--install-extension', options.vsix], { env, encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`installing ${options.vsix} failed: ${install.stderr}${install.stdout}`);
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    CODE_SERVER,
    [
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      ...common,
      options.workspace,
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout?.on('data', (chunk) => (log += chunk));
  child.stderr?.on('data', (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (true) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`code-server did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    port,
    home,
    stop: async () => {
      // The whole group: killing one pid leaves code-server's watchers and extension host behind.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** A workspace with the embedded superhero sample in BIRD's layout, plus the files the tests open. */
export function sampleWorkspace(files: Record<string, string>): string {
  const workspace = tempDir('ves-lens-workspace-');
  const sample = path.join(REPO_ROOT, 'sample');
  for (const name of ['mini_dev_superhero.json', 'mini_dev_superhero_gold.sql', 'predict_gpt-4_superhero.json'])
    fs.copyFileSync(path.join(sample, name), path.join(workspace, name));
  fs.mkdirSync(path.join(workspace, 'superhero'));
  fs.copyFileSync(path.join(sample, 'superhero', 'superhero.sqlite'), path.join(workspace, 'superhero', 'superhero.sqlite'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
  return workspace;
}
