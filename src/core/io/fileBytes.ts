import * as fs from 'fs';

/** Up to `length` bytes of `file` from `offset` (fewer where the file ends first); fails as fs fails. */
export function readFileBytes(file: string, offset: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  const fd = fs.openSync(file, 'r');
  try {
    return bytes.subarray(0, fs.readSync(fd, bytes, 0, length, offset));
  } finally {
    fs.closeSync(fd);
  }
}
