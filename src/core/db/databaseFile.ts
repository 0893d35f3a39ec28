import * as fs from 'fs';
import { binaryKind } from '../bird/fileKind';
import { readFileBytes } from '../io/fileBytes';

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * Why a file is no SQLite database, told from its first bytes, or undefined when it starts like one. SQLite
 * itself opens anything and only fails at the first query ("file is not a database"); an empty file it
 * takes for an empty database, which would make every question's gold fail.
 */
export function databaseFileProblem(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `cannot read it: ${(error as Error).message}`;
  }
  if (stat.isDirectory()) return 'a folder, not a SQLite database';
  if (stat.size === 0) return 'empty (0 bytes), not a SQLite database';
  let head: Buffer;
  try {
    head = readFileBytes(file, 0, Math.min(4096, stat.size));
  } catch (error) {
    return `cannot read it: ${(error as Error).message}`;
  }
  if (head.subarray(0, 16).toString('latin1') === SQLITE_HEADER) {
    if (stat.size < 512) return `cut short (${stat.size} bytes): not a whole SQLite database`;
    // The header's page size and page count (valid when its version-valid-for number matches the change
    // counter) say how long the file must be: a shorter one was cut off in a copy or download.
    const pageSize = head.readUInt16BE(16) === 1 ? 65536 : head.readUInt16BE(16);
    const pages = head.readUInt32BE(28);
    if (pages > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) && stat.size < pageSize * pages) {
      return `cut short: its header says ${pages} pages of ${pageSize} bytes (${(pageSize * pages).toLocaleString('en-US')} bytes), the file has ${stat.size.toLocaleString('en-US')}`;
    }
    return undefined;
  }
  const kind = binaryKind(head);
  if (kind) return `${kind}, not a SQLite database`;
  const text = head.toString('utf8').trimStart();
  if (text.startsWith('{') || text.startsWith('[')) return 'a JSON file, not a SQLite database';
  return `a text file (it starts with ${JSON.stringify(text.slice(0, 30))}), not a SQLite database`;
}
