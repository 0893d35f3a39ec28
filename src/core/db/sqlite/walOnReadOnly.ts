import * as fs from 'fs';
import * as path from 'path';
import { readFileBytes } from '../../io/fileBytes';

/**
 * Why a database in WAL mode cannot be read where it is, or undefined. Reading a WAL-mode file needs its
 * `-shm` index beside it, which SQLite creates on first use; in a read-only folder (a read-only mount, a
 * CD image) it cannot, and every read fails with "unable to open database file" (Python's sqlite3 too).
 * Bytes 18 and 19 of the header are 2 in WAL mode.
 */
export function walOnReadOnlyFolder(file: string): string | undefined {
  let header: Buffer;
  try {
    header = readFileBytes(file, 0, 20);
  } catch {
    return undefined; // unreadable for another reason, which SQLite words itself
  }
  if (header.length < 20) return undefined;
  if (header[18] !== 2 || header[19] !== 2 || fs.existsSync(`${file}-shm`)) return undefined;
  const folder = path.dirname(file);
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'EROFS' ? 'a read-only file system' : 'a folder it cannot write to';
    return (
      `a WAL-mode database on ${why}: SQLite must create ${file}-shm beside it to read it, and cannot ` +
      `(Python's sqlite3 fails the same way). Copy it to a writable folder, or switch it to rollback mode once ` +
      `where it can be written: sqlite3 ${path.basename(file)} 'PRAGMA journal_mode=DELETE'`
    );
  }
}
