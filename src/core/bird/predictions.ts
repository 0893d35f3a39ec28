import * as path from 'path';
import { getNodeValue, parseTree } from 'jsonc-parser';
import { InputFileError, InputProblem } from './problems';
import { parseJsonFile, readTextFile, topLevelEntryLines } from './jsonFile';

/** The separator the official format puts between SQL and db_id. */
export const BIRD_SEPARATOR = '\t----- bird -----\t';

export interface Prediction {
  sql: string;
  /** db_id the prediction names, if any (the official scripts run on the gold's database regardless). */
  dbId?: string;
  /** Question it answers, when the file says so (list format); otherwise it pairs by position. */
  questionId?: number | string;
  /** `key "12"`, `item 3, line 40`, `line 7`: where it stands in its file, for messages. */
  where: string;
}

export type PredictionFormat = 'bird-object' | 'json-list' | 'lines';

export interface PredictionFile {
  file: string;
  format: PredictionFormat;
  /** `position`: prediction i answers question i (as the official scripts pair them); `question_id`: by id. */
  pairing: 'position' | 'question_id';
  predictions: Prediction[];
  problems: InputProblem[];
}

/** Splits an official `SQL\t----- bird -----\tdb_id` string; without the separator the whole string is SQL. */
export function splitBirdEntry(value: string): { sql: string; dbId?: string; extraSeparators: boolean } {
  const parts = value.split(BIRD_SEPARATOR);
  if (parts.length === 1) return { sql: value, extraSeparators: false };
  return { sql: parts[0], dbId: parts[parts.length - 1].trim(), extraSeparators: parts.length > 2 };
}

/** Object entries in the order they stand in the file (JavaScript objects put integer-like keys first). */
function entriesInFileOrder(text: string): [string, unknown][] {
  return (parseTree(text)?.children ?? []).map((property) => [String(property.children![0].value), getNodeValue(property.children![1])]);
}

const SQL_FIELDS = ['predicted_sql', 'pred_sql', 'prediction', 'predicted', 'pred', 'sql', 'SQL'];

function fromObjectFile(file: string, text: string): PredictionFile {
  const problems: InputProblem[] = [];
  const entries = entriesInFileOrder(text);
  const firstOddKey = entries.findIndex(([key], i) => key !== String(i));
  const predictions = entries.map(([key, value], position): Prediction => {
    const where = `key ${JSON.stringify(key)}`;
    if (typeof value !== 'string') {
      problems.push({ file, where, message: 'value is not a string; scored as an empty query, as the official scripts do' });
      return { sql: ' ', where };
    }
    const { sql, dbId, extraSeparators } = splitBirdEntry(value);
    if (extraSeparators) problems.push({ file, where, message: `more than one "${BIRD_SEPARATOR.trim()}" separator; the first part is the SQL` });
    if (position === firstOddKey) {
      problems.push({ file, where, message: `keys are not 0, 1, 2, ...; entries pair with questions by position, as the official scripts do` });
    }
    return { sql, dbId, where };
  });
  return { file, format: 'bird-object', pairing: 'position', predictions, problems };
}

function fromListFile(file: string, text: string, data: unknown[]): PredictionFile {
  const problems: InputProblem[] = [];
  const lines = topLevelEntryLines(text);
  const predictions: Prediction[] = [];
  let withIds = 0;
  data.forEach((item, index) => {
    const where = `item ${index}${lines[index] ? `, line ${lines[index]}` : ''}`;
    if (typeof item === 'string') {
      predictions.push({ ...splitBirdEntry(item), where });
      return;
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ file, where, message: 'expected an object with question_id and predicted_sql, or a SQL string; scored as an empty query' });
      predictions.push({ sql: ' ', where });
      return;
    }
    const record = item as Record<string, unknown>;
    const field = SQL_FIELDS.find((name) => typeof record[name] === 'string');
    if (!field) {
      problems.push({ file, where, message: `no SQL field (one of ${SQL_FIELDS.join(', ')}); scored as an empty query` });
    }
    const questionId = typeof record.question_id === 'number' || typeof record.question_id === 'string' ? record.question_id : undefined;
    if (questionId !== undefined) withIds++;
    const split = field ? splitBirdEntry(record[field] as string) : { sql: ' ', dbId: undefined };
    predictions.push({
      sql: split.sql,
      dbId: typeof record.db_id === 'string' ? record.db_id : split.dbId,
      questionId,
      where,
    });
  });
  const pairing = withIds === predictions.length && withIds > 0 ? 'question_id' : 'position';
  if (withIds > 0 && pairing === 'position') {
    problems.push({ file, message: `only ${withIds} of ${predictions.length} items have a question_id; all pair by position` });
  }
  return { file, format: 'json-list', pairing, predictions, problems };
}

/** One SQL a line; a line may end in the official separator and db_id, or in a tab and db_id. */
function fromLinesFile(file: string, text: string): PredictionFile {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  const predictions = lines.map((raw, i): Prediction => {
    const line = raw.replace(/\r$/, '');
    const where = `line ${i + 1}`;
    if (line.includes(BIRD_SEPARATOR)) return { ...splitBirdEntry(line), where };
    const gold = /^(.*)\t(\w+)\s*$/.exec(line);
    return gold ? { sql: gold[1], dbId: gold[2], where } : { sql: line, where };
  });
  return { file, format: 'lines', pairing: 'position', predictions, problems: [] };
}

/**
 * Reads a prediction file in any of the formats seen in public BIRD work: the official
 * `{"0": "SQL\t----- bird -----\tdb_id"}` object, a JSON list of {question_id, predicted_sql} objects (or of
 * SQL strings), or plain text with one SQL a line.
 */
export function loadPredictions(file: string): PredictionFile {
  const text = readTextFile(file);
  const start = text.trimStart()[0];
  const looksJson = start === '{' || start === '[' || path.extname(file).toLowerCase() === '.json';
  if (!looksJson) return fromLinesFile(file, text);
  const data = parseJsonFile(file, text);
  if (Array.isArray(data)) return fromListFile(file, text, data);
  if (typeof data === 'object' && data !== null) return fromObjectFile(file, text);
  throw new InputFileError({ file, message: 'a JSON prediction file must hold an object or a list' });
}
