// The local MariaDB server dies with the process that started it, even when that process is killed outright
// (SIGKILL: no exit handler runs): its watchdog kills mariadbd and removes the throwaway folder. A real node process
// starts a real server here and is killed.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { describe, it } from 'node:test';
import { localServerMissing } from '../../src/core/db/mysql/localServer';
import { REPO_ROOT } from '../helpers';

const missing = localServerMissing();
if (missing && process.env.CI) throw new Error(`under CI the MySQL tests must run: ${missing}`);

/** Whether a process of this pid is alive (and not a zombie left for its parent to reap). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe('the local MariaDB server', { skip: missing }, () => {
  it('is killed, and its folder removed, when the process that started it is SIGKILLed', async () => {
    const script =
      "const { startLocalServer } = require('./src/core/db/mysql/localServer');" +
      "startLocalServer({ database: 'BIRD' }).then((s) => { const pid = require('node:fs').readFileSync(require('node:path').join(require('node:path').dirname(s.socket), 'mysqld.pid'), 'utf8').trim();" +
      ' console.log(JSON.stringify({ pid: Number(pid), socket: s.socket })); setInterval(() => {}, 1000); });';
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the starter exited (${code}) before its server was up`)));
    });
    const { pid, socket } = JSON.parse(line) as { pid: number; socket: string };
    assert.ok(alive(pid), 'mariadbd runs');
    child.kill('SIGKILL');
    const deadline = performance.now() + 15_000;
    while ((alive(pid) || fs.existsSync(socket)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(!alive(pid), `mariadbd ${pid} outlived its starter`);
    assert.ok(!fs.existsSync(socket), 'the throwaway folder is removed');
  });
});
