import * as fs from 'fs';
import { parse, ParseError, visit } from 'jsonc-parser';
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
/** Whether a text starts, after white space, as a JSON object or list does (what a SQL or lines file never does). */
export function startsAsJson(text: string): boolean {
  const start = text.trimStart()[0];
  return start === '{' || start === '[';
}

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

/** What one pass over a valid JSON text finds: where its top-level entries start, and how many keys it holds. */
export interface JsonOutline {
  /** Offset at which each top-level array item or object property (its key) starts. */
  entryOffsets: number[];
  /** The line number (1-based) of each of them. */
  entryLines: number[];
  /** Object properties in the text, repeated keys counted each time. */
  keyCount: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What the outline stops at: the characters that give a JSON text its structure. */
const STRUCTURE = /["[\]{},:]/g;
const NOT_WHITESPACE = /[^ \t\r\n]/g;

/** Offset of the quote that closes the string opened at `open`. */
function stringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0 || end === -1) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** The value of the JSON string that starts at `offset` of a valid JSON text (an object's key, say). */
export function jsonStringAt(text: string, offset: number): string {
  const token = text.slice(offset, stringEnd(text, offset) + 1);
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

/**
 * One pass over a text JSON.parse has accepted, in native regular-expression and indexOf steps (a character
 * loop, or jsonc-parser's tree, takes several times as long on a 3 MB question file, the first time a command
 * runs). Strings are skipped whole; a colon outside them follows a key.
 */
export function outlineJson(text: string): JsonOutline {
  const entryOffsets: number[] = [];
  let depth = 0;
  let keyCount = 0;
  const structure = new RegExp(STRUCTURE);
  const entryAfter = (at: number) => {
    NOT_WHITESPACE.lastIndex = at + 1;
    const next = NOT_WHITESPACE.exec(text);
    const c = next?.[0];
    if (next && c !== ']' && c !== '}') entryOffsets.push(next.index);
  };
  for (let found = structure.exec(text); found; found = structure.exec(text)) {
    const at = found.index;
    switch (text.charCodeAt(at)) {
      case QUOTE:
        structure.lastIndex = stringEnd(text, at) + 1;
        if (structure.lastIndex === 0) return { entryOffsets, entryLines: linesOf(text, entryOffsets), keyCount };
        break;
      case 0x3a: // :
        keyCount++;
        break;
      case 0x5b: // [
      case 0x7b: // {
        if (++depth === 1) entryAfter(at);
        break;
      case 0x5d: // ]
      case 0x7d: // }
        depth--;
        break;
      default: // ,
        if (depth === 1) entryAfter(at);
    }
  }
  return { entryOffsets, entryLines: linesOf(text, entryOffsets), keyCount };
}

/** The line number (1-based) of each offset, in increasing order. */
function linesOf(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let newline = text.indexOf('\n');
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++;
      newline = text.indexOf('\n', newline + 1);
    }
    lines.push(line);
  }
  return lines;
}

/** The line number (1-based) at which each top-level array item or object property starts. */
export function topLevelEntryLines(text: string): number[] {
  return outlineJson(text).entryLines;
}

/** The keys of every object in a parsed value (JSON.parse keeps one of each repeated key). */
function parsedKeyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += parsedKeyCount(item);
    return count;
  }
  for (const key in value) count += 1 + parsedKeyCount((value as Record<string, unknown>)[key]);
  return count;
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

/**
 * The problems that say which keys a file repeats and that the last value is used, as the official scripts do.
 * Given the text's outline and its parsed value, a text whose keys all survived parsing is known to repeat none
 * without walking it again.
 */
export function duplicateKeyProblems(file: string, text: string, parsed?: { outline: JsonOutline; data: unknown }): InputProblem[] {
  if (parsed && parsed.outline.keyCount === parsedKeyCount(parsed.data)) return [];
  // The first is said at the top of the report; a file that repeats many keys does not flood it.
  return duplicateJsonKeys(text).map((duplicate, i) => ({
    file,
    where: `line ${duplicate.line}`,
    message: `key ${JSON.stringify(duplicate.key)} appears again in ${duplicate.within}: its last value is used, as Python's json.load (the official scripts) does`,
    headline: i === 0,
  }));
}
