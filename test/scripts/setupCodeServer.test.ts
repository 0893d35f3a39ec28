// scripts/setup-code-server.sh writes nothing outside the project: code-server's --version call (which writes
// config.yaml and data folders under HOME and XDG) runs with a throwaway home inside the install's folder.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, tempDir } from '../helpers';

/** Without these the script installs them with apt-get (as root): not something a unit test may do. */
function systemPackagesMissing(): string | false {
  const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
  if (!has('chromium') || !has('rg')) return 'chromium or ripgrep not installed (the script would apt-get them)';
  return spawnSync('dpkg', ['-s', 'libkrb5-dev']).status === 0 ? false : 'libkrb5-dev not installed (the script would apt-get it)';
}

/** A stand-in for code-server that does what the real one does on `--version`: writes config.yaml and data under HOME/XDG. */
const FAKE_CODE_SERVER = `#!/usr/bin/env bash
config="\${XDG_CONFIG_HOME:-$HOME/.config}/code-server"
data="\${XDG_DATA_HOME:-$HOME/.local/share}/code-server"
mkdir -p "$config" "$data"
echo "password: generated" > "$config/config.yaml"
echo "$HOME" > "$SEEN_HOME_FILE"
echo "4.100.3 stand-in with Code 1.100.3"
`;

describe('scripts/setup-code-server.sh', { skip: systemPackagesMissing() }, () => {
  it('runs code-server --version with a throwaway HOME and XDG folders inside the install folder, removed after', () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    fs.mkdirSync(home);
    const target = path.join(root, 'vscode-test', 'code-server');
    const bin = path.join(target, 'node_modules', '.bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'code-server'), FAKE_CODE_SERVER, { mode: 0o755 });
    const seenHomeFile = path.join(root, 'seen-home');
    const stdout = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'setup-code-server.sh')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: '',
        XDG_DATA_HOME: '',
        VES_LENS_CODE_SERVER_DIR: target,
        SEEN_HOME_FILE: seenHomeFile,
      },
    });
    assert.match(stdout, /4\.100\.3 stand-in/);
    assert.deepEqual(fs.readdirSync(home), [], 'nothing written to the real HOME (no .config/code-server/config.yaml)');
    const seenHome = fs.readFileSync(seenHomeFile, 'utf8').trim();
    assert.equal(path.dirname(seenHome), path.dirname(target), 'code-server ran with a home beside its install');
    assert.ok(!fs.existsSync(seenHome), 'the throwaway home is removed');
  });
});
