import * as fs from 'fs';
import { parseTree } from 'jsonc-parser';
import { InputFileError, lineAndColumn } from './problems';

export function readTextFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputFileError({ file, message: `cannot read file: ${(error as Error).message}` });
  }
}

/** JSON.parse with an error that names the file, line and column. */
export function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position ? lineAndColumn(text, Number(position[1])) : undefined;
    throw new InputFileError({
      file,
      where: where ? `line ${where.line}, column ${where.column}` : undefined,
      message: `not valid JSON: ${message}`,
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
