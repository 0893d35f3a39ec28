import * as fs from 'fs';
import * as path from 'path';
import { InputProblem } from './problems';

/** BIRD's layout: `<db_root>/<db_id>/<db_id>.sqlite`. */
export function databasePath(dbRoot: string, dbId: string): string {
  return path.join(dbRoot, dbId, `${dbId}.sqlite`);
}

export function databaseExists(dbRoot: string, dbId: string): boolean {
  return fs.existsSync(databasePath(dbRoot, dbId));
}

/**
 * Why a database file that is not there as a file cannot be reached, when something stands in its place: a loop
 * of symbolic links, a link to nothing, a folder that cannot be read. Undefined when nothing is there at all.
 */
export function unreachableDatabase(file: string): string | undefined {
  try {
    fs.statSync(file);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return 'a loop of symbolic links (it, or a folder on its path, links back to itself)';
    if (code === 'EACCES') return 'permission denied';
    if (code === 'ENOTDIR') return `${path.dirname(file)} is a file, not a folder`;
    if (code !== 'ENOENT') return (error as Error).message;
  }
  try {
    if (fs.lstatSync(file).isSymbolicLink()) return `a symbolic link to ${fs.readlinkSync(file)}, which does not exist`;
  } catch {
    // nothing there at all
  }
  return undefined;
}

const subfolders = (folder: string): string[] => {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
};

/**
 * When databases the questions name are not where BIRD's layout puts them under `dbRoot`, what was found instead
 * and what was expected: an empty folder, a --db-root one folder too deep (the database's own folder) or too
 * high (the folder above dev_databases/), or a folder that is none of these. One headline problem, or none.
 */
export function dbRootProblems(dbRoot: string, dbIds: readonly string[]): InputProblem[] {
  // A database that is there but cannot be reached (a symlink loop) is said question by question, not here.
  const missing = [...new Set(dbIds.filter(Boolean))].filter(
    (dbId) => !databaseExists(dbRoot, dbId) && !unreachableDatabase(databasePath(dbRoot, dbId)),
  );
  if (missing.length === 0 || !fs.existsSync(dbRoot) || !fs.statSync(dbRoot).isDirectory()) return [];
  const expected = (dbId: string) => `expected ${databasePath(dbRoot, dbId)}`;
  const problem = (message: string): InputProblem[] => [{ file: dbRoot, message: `--db-root: ${message}`, headline: true }];
  let entries: string[];
  try {
    entries = fs.readdirSync(dbRoot);
  } catch (error) {
    return problem(`cannot read the folder: ${(error as Error).message}`);
  }
  if (entries.length === 0) return problem(`the folder is empty (${expected(missing[0])}, one folder per db_id)`);
  // Every missing database is looked for one folder off: with only some of a benchmark's databases at hand (mini-dev's
  // 3 of 11), the first one named may be nowhere at all.
  for (const dbId of missing) {
    const tooDeep = [path.join(dbRoot, `${dbId}.sqlite`), databasePath(path.dirname(path.resolve(dbRoot)), dbId)].find((file) =>
      fs.existsSync(file),
    );
    if (tooDeep) return problem(`found ${tooDeep}, ${expected(dbId)}: --db-root is one folder too deep? (give the folder above it)`);
  }
  const folders = subfolders(dbRoot);
  for (const dbId of missing) {
    const tooHigh = folders.map((folder) => databasePath(path.join(dbRoot, folder), dbId)).find((file) => fs.existsSync(file));
    if (tooHigh)
      return problem(
        `found ${tooHigh}, ${expected(dbId)}: --db-root is one folder too high? (give ${path.dirname(path.dirname(tooHigh))})`,
      );
  }
  if (missing.length === new Set(dbIds.filter(Boolean)).size)
    return problem(`none of the ${missing.length} databases the questions name is in it (${expected(missing[0])})`);
  return [];
}
