import * as fs from 'fs';
import * as path from 'path';
import { cleanStaleTemporaries, temporaryPathFor, trackTemporary, untrackTemporary } from './atomicFile';

/**
 * Writes one entry of an on-disk cache (the judge's replies, embeddings): through a tracked temporary beside it
 * and a rename, so a reader never sees half an entry, this process's temporary goes on any exit, and one left by
 * a killed run (its pid in the name) is removed by the next run that writes to that folder. No fsync, unlike a
 * report (atomicFile's writeFileAtomic): an entry lost to a power cut only costs asking again, and a cache writes
 * many small entries. Throws what the file system says (a full or read-only disk): the caller decides.
 */
export function writeCacheEntry(file: string, data: string | Uint8Array): void {
  const folder = path.dirname(file);
  fs.mkdirSync(folder, { recursive: true });
  cleanStaleTemporaries(folder);
  const temporary = temporaryPathFor(file);
  trackTemporary(temporary);
  try {
    fs.writeFileSync(temporary, data, { flag: 'wx' });
    fs.renameSync(temporary, file);
  } finally {
    fs.rmSync(temporary, { force: true }); // renamed away already, unless the write failed
    untrackTemporary(temporary);
  }
}
