import * as fs from 'fs';
import { parse, ParseError, parseTree, visit } from 'jsonc-parser';
import { binaryKind, byteLineAndColumn, firstInvalidUtf8 } from './fileKind';
import { InputFileError, InputProblem, lineAndColumn } from './problems';

/** Files larger than this are no BIRD input (the 1534-question dev set is 3 MB): reading one would exhaust memory. */
export const MAX_INPUT_BYTES = 512 * 2 ** 20;

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'file not found',
  EISDIR: 'is a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a folder',
  ENAMETOOLONG: 'the path is too long',
};

/**
 * Reads a text input file strictly: UTF-8 (a leading byte-order mark is dropped), never a database, archive or
 * other binary passed by mistake; every failure is an InputFileError that names the file and says what it is.
 * `what` names the role the file was given in ("prediction file"), for messages.
 */
export function readTextFile(file: string, what = 'text file'): string {
  let bytes: Buffer;
  try {
    const stat = fs.statSync(file);
    if (stat.isDirectory()) throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
    if (stat.size > MAX_INPUT_BYTES) {
      throw new InputFileError({
        file,
        message: `${(stat.size / 2 ** 20).toFixed(0)} MiB: too large for a ${what} (at most ${MAX_INPUT_BYTES / 2 ** 20} MiB)`,
      });
    }
    bytes = fs.readFileSync(file);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new InputFileError({ file, message: `cannot read the ${what}: ${READ_ERRORS[code] ?? (error as Error).message}` });
  }
  const kind = binaryKind(bytes);
  if (kind) throw new InputFileError({ file, message: `${kind}, not a ${what}` });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const at = byteLineAndColumn(bytes, Math.max(0, offset));
    throw new InputFileError({
      file,
      where: `line ${at.line}, column ${at.column}`,
      message: `not UTF-8 text (byte 0x${bytes[offset]?.toString(16).padStart(2, '0') ?? '??'} cannot start or continue a UTF-8 character); save the ${what} as UTF-8`,
    });
  }
}

/** JSON.parse with an error that names the file, line and column (found by jsonc-parser when V8's message has no position). */
export function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    let offset = position ? Number(position[1]) : undefined;
    if (offset === undefined) {
      const errors: ParseError[] = [];
      parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
      offset = errors[0]?.offset;
    }
    const where = offset !== undefined ? lineAndColumn(text, offset) : undefined;
    throw new InputFileError({
      file,
      where: where ? `line ${where.line}, column ${where.column}` : undefined,
      message: `not valid JSON: ${message.length > 300 ? `${message.slice(0, 300)}…` : message}`,
    });
  }
}

/** The line number (1-based) at which each top-level array item or object property starts. */
export function topLevelEntryLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let at = 0;
  for (const entry of parseTree(text)?.children ?? []) {
    for (; at < entry.offset; at++) if (text.charCodeAt(at) === 10) line++;
    lines.push(line);
  }
  return lines;
}

/** A key an object of a JSON file holds more than once: Python's json.load (the official scripts') keeps the last value. */
export interface DuplicateJsonKey {
  key: string;
  /** Where the repeated key stands: `line 12` (the second, third... occurrence). */
  line: number;
  /** The object's place: `the top-level object`, `item 3`. */
  within: string;
}

/**
 * Every repeated key of every object in the text, in file order. JSON.parse, like Python's json.load, keeps the
 * last value of a repeated key; a reader that walks the text itself (file order, line numbers) must do so too.
 */
export function duplicateJsonKeys(text: string): DuplicateJsonKey[] {
  const found: DuplicateJsonKey[] = [];
  // One frame per open object or array: the keys seen so far (objects), the index of the next item (arrays).
  const stack: { keys?: Set<string>; items: number; within: string }[] = [];
  let line = 1;
  let scanned = 0;
  const lineAt = (offset: number) => {
    for (; scanned < offset; scanned++) if (text.charCodeAt(scanned) === 10) line++;
    return line;
  };
  const childPlace = () => {
    const parent = stack[stack.length - 1];
    if (!parent) return 'the top-level object';
    if (!parent.keys) return stack.length === 1 ? `item ${parent.items++}` : `${parent.within}, item ${parent.items++}`;
    return parent.within;
  };
  visit(text, {
    onObjectBegin: () => {
      stack.push({ keys: new Set(), items: 0, within: childPlace() });
    },
    onObjectEnd: () => void stack.pop(),
    onArrayBegin: () => {
      stack.push({ items: 0, within: childPlace() });
    },
    onArrayEnd: () => void stack.pop(),
    onLiteralValue: () => {
      const parent = stack[stack.length - 1];
      if (parent && !parent.keys) parent.items++;
    },
    onObjectProperty: (key, offset) => {
      const keys = stack[stack.length - 1]?.keys;
      if (!keys) return;
      if (keys.has(key)) found.push({ key, line: lineAt(offset), within: stack[stack.length - 1].within });
      else keys.add(key);
    },
  });
  return found;
}

/** The problems that say which keys a file repeats and that the last value is used, as the official scripts do. */
export function duplicateKeyProblems(file: string, text: string): InputProblem[] {
  // The first is said at the top of the report; a file that repeats many keys does not flood it.
  return duplicateJsonKeys(text).map((duplicate, i) => ({
    file,
    where: `line ${duplicate.line}`,
    message: `key ${JSON.stringify(duplicate.key)} appears again in ${duplicate.within}: its last value is used, as Python's json.load (the official scripts) does`,
    headline: i === 0,
  }));
}
