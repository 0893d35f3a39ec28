import * as fs from 'fs';
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

/** The line number (1-based) at which each top-level array item or object key starts, by a cheap scan. */
export function topLevelEntryLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  let expectEntry = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (/\s/.test(c)) continue;
    if (depth === 1 && expectEntry && c !== ']' && c !== '}') {
      lines.push(line);
      expectEntry = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectEntry = true;
    } else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) expectEntry = false;
    } else if (c === ',' && depth === 1) expectEntry = true;
  }
  return lines;
}
