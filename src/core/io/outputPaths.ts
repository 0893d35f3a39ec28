import * as fs from 'fs';
import * as path from 'path';

/** An output path is refused before any work: the message names the output and what it would destroy. */
export class OutputClash extends Error {}

/** A file a command reads (its label says which option gave it, e.g. `--predictions`). */
export interface NamedInput {
  label: string;
  file: string | undefined;
}

/** A folder no output may be written into (a database folder: `--db-root`). */
export interface ProtectedFolder {
  label: string;
  folder: string | undefined;
}

/** How many symbolic links are followed before a path is said to loop (as the kernel's ELOOP). */
const MAX_LINKS = 40;

/**
 * The real path a write to `file` would land on: symbolic links resolved, also for a file that does not exist
 * yet (its folder resolved) or a link that points at a missing file (the link's target, where the write goes).
 */
export function realOutputPath(file: string): string {
  let current = path.resolve(file);
  for (let links = 0; links <= MAX_LINKS; links++) {
    try {
      return fs.realpathSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new OutputClash(`${file}: a loop of symbolic links`);
      if (code !== 'ENOENT') return current;
    }
    let link: string | undefined;
    try {
      link = fs.lstatSync(current).isSymbolicLink() ? fs.readlinkSync(current) : undefined;
    } catch {
      link = undefined; // does not exist at all: resolve its folder
    }
    if (link === undefined) {
      const folder = path.dirname(current);
      if (folder === current) return current;
      return path.join(realOutputPath(folder), path.basename(current));
    }
    current = path.resolve(path.dirname(current), link);
  }
  throw new OutputClash(`${file}: a loop of symbolic links`);
}

/** dev:inode of an existing file (a hard link is the same file under another name), else undefined. */
function identity(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

function realOrResolved(file: string): string {
  try {
    return realOutputPath(file);
  } catch {
    return path.resolve(file);
  }
}

const inside = (file: string, folder: string) => file === folder || file.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);

/**
 * Checks one output against every input file and protected folder by real path (symbolic links resolved) and by
 * identity (hard links): an output that would replace an input, or land inside a database folder, is an
 * OutputClash naming both.
 */
export function checkOutputAgainstInputs(
  flag: string,
  file: string,
  inputs: readonly NamedInput[],
  folders: readonly ProtectedFolder[] = [],
): void {
  const real = realOutputPath(file);
  const id = identity(real);
  const via = real !== path.resolve(file) ? ` (through ${real})` : '';
  for (const input of inputs) {
    if (!input.file) continue;
    const inputReal = realOrResolved(input.file);
    const sameFile = inputReal === real || (id !== undefined && identity(inputReal) === id);
    if (sameFile) {
      const which = input.label === 'input' ? input.file : `${input.label} ${input.file}`;
      throw new OutputClash(`${flag}: ${file}${via} is also an input file; writing it would destroy it (${which})`);
    }
  }
  for (const { label, folder } of folders) {
    if (!folder || !inside(real, realOrResolved(folder))) continue;
    throw new OutputClash(
      `${flag}: ${file}${via} is inside the database folder ${folder} (${label}); writing there could replace a database: ` +
        'write it elsewhere',
    );
  }
}
