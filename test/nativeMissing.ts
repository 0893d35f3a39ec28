import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, tempDir } from './helpers';

/**
 * The built tool as an install has it (bin/, dist/, package.json) in a folder of its own, with node-sqlite3's
 * JavaScript but not its compiled .node file: what a user has where the native module was not built (no
 * compiler) or was built for another platform. Returns the folder.
 */
export function installWithoutNativeSqlite(): string {
  const root = tempDir('ves-lens-no-native-');
  for (const part of ['bin', 'dist', 'package.json']) fs.cpSync(path.join(REPO_ROOT, part), path.join(root, part), { recursive: true });
  const native = path.join(root, 'node_modules', '@vscode', 'sqlite3');
  fs.cpSync(path.join(REPO_ROOT, 'node_modules', '@vscode', 'sqlite3', 'lib'), path.join(native, 'lib'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'node_modules', '@vscode', 'sqlite3', 'package.json'), path.join(native, 'package.json'));
  return root;
}
