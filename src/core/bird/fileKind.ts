/**
 * What a file given as text really is, told from its first bytes, so that a database, an archive or a binary
 * passed as a prediction file stops with a message saying so instead of being read as one SQL a line; and, once
 * parsed, which known JSON file it is, so that a BIRD tables file or an empty object is refused by name.
 */

const SIGNATURES: [bytes: number[], what: string][] = [
  [[...Buffer.from('SQLite format 3\0', 'latin1')], 'a SQLite database'],
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive'],
  [[0x1f, 0x8b], 'a gzip archive'],
  [[0x42, 0x5a, 0x68], 'a bzip2 archive'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'an xz archive'],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 'a 7-Zip archive'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x7f, 0x45, 0x4c, 0x46], 'an executable (ELF)'],
  [[0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59], 'a NumPy array file'],
  [[0x80, 0x04, 0x95], 'a Python pickle'],
  [[0xff, 0xfe, 0x00, 0x00], 'UTF-32 text (save it as UTF-8)'],
  [[0xff, 0xfe], 'UTF-16 text (save it as UTF-8)'],
  [[0xfe, 0xff], 'UTF-16 text (save it as UTF-8)'],
];

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  if (bytes.length < signature.length) return false;
  for (let i = 0; i < signature.length; i++) if (bytes[i] !== signature[i]) return false;
  return true;
}

/** Control bytes that never occur in text: everything below 0x20 but tab, newline, \v, \f, \r; and DEL. */
const CONTROL_BYTES = /[\x00-\x08\x0e-\x1f\x7f]/g;
const ZERO_BYTES = /\x00/g;

/**
 * `a SQLite database`, `a ZIP archive`, `UTF-16 text (...)`, `a binary file`, ... for bytes that are no UTF-8
 * text; undefined for text. A stray NUL or two in text is left for the reader (a prediction holding one is
 * scored as Python scores it); many control bytes make a binary file. Only the first 64 KiB are looked at, read as
 * Latin-1 (one character a byte) and counted by regular expressions: this runs once per input file, before V8 has
 * optimised anything, where a loop over the bytes costs milliseconds.
 */
export function binaryKind(bytes: Uint8Array): string | undefined {
  for (const [signature, what] of SIGNATURES) if (startsWith(bytes, signature)) return what;
  const sample = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 65536)).toString('latin1');
  const control = sample.match(CONTROL_BYTES)?.length ?? 0;
  if (control >= 4 && control / sample.length > 0.02) {
    const zeros = sample.match(ZERO_BYTES)?.length ?? 0;
    // ASCII saved as UTF-16 without a byte-order mark: every other byte is 0.
    if (zeros > sample.length / 3 && zeros < (sample.length * 2) / 3) return 'UTF-16 text without a byte-order mark (save it as UTF-8)';
    return 'a binary file';
  }
  return undefined;
}

/** Offset of the first byte that breaks UTF-8, or -1 when every byte sequence is valid. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [length, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [length, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    if (i + length > bytes.length) return i;
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if ((c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/** Line and column (1-based, in characters of the valid text before it) of a byte offset. */
export function byteLineAndColumn(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = Buffer.from(bytes.subarray(lineStart, offset)).toString('utf8').length + 1;
  return { line, column };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A BIRD tables file (dev_tables.json, train_tables.json): one item per database, its tables and columns. */
function isTablesFile(data: unknown[]): boolean {
  return (
    data.length > 0 &&
    data.every(
      (item) =>
        isRecord(item) &&
        typeof item.db_id === 'string' &&
        Array.isArray(item.table_names_original ?? item.table_names) &&
        Array.isArray(item.column_names_original ?? item.column_names),
    )
  );
}

/**
 * `a BIRD tables file (...)`, `an empty JSON object`, `a VES Lens report (...)`: the known JSON files that hold
 * no SQL to score, named for messages; undefined for anything else (a question file is told by its reader).
 */
export function jsonFileKind(data: unknown): string | undefined {
  if (Array.isArray(data)) {
    const tables = "a BIRD tables file (each item describes a database's tables and columns: db_id, table_names, column_names)";
    return isTablesFile(data) ? tables : undefined;
  }
  if (!isRecord(data)) return undefined;
  if (Object.keys(data).length === 0) return 'an empty JSON object';
  if (isRecord(data.tool) && data.tool.name === 'ves-lens') return 'a VES Lens report (the JSON of eval, judge or audit)';
  return undefined;
}
