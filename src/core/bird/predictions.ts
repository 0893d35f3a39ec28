import * as path from 'path';
import { BIRD_SEPARATOR, GOLD_FIELDS, PREDICTION_ONLY_FIELDS, PREDICTION_SQL_FIELDS } from './predictionFields';
import { InputFileError, InputProblem } from './problems';
import { jsonFileKind } from './fileKind';
import { duplicateKeyProblems, jsonStringAt, JsonOutline, outlineJson, parseJsonFile, readTextFile, startsAsJson } from './jsonFile';

export { BIRD_SEPARATOR };

export interface Prediction {
  sql: string;
  /** db_id the prediction names, if any (the official scripts run on the gold's database regardless). */
  dbId?: string;
  /** Question it answers, when the file says so (list format); otherwise it pairs by position. */
  questionId?: number | string;
  /** `key "12"`, `item 3, line 40`, `line 7`: where it stands in its file, for messages. */
  where: string;
  /** Gold SQL the file carries beside the prediction (`gold_sql`, as ROSE's method results), if any. */
  goldSql?: string;
}

export type PredictionFormat = 'bird-object' | 'json-list' | 'lines';

export interface PredictionFile {
  file: string;
  format: PredictionFormat;
  /** `position`: prediction i answers question i (as the official scripts pair them); `question_id`: by id. */
  pairing: 'position' | 'question_id';
  predictions: Prediction[];
  problems: InputProblem[];
  /** The field that carries gold SQL beside each prediction (`gold_sql`, ...), when the file has one. */
  goldField?: string;
  /** True when the file holds nothing but whitespace (0 predictions, said at the top of the report). */
  empty?: boolean;
}

export interface LoadPredictionOptions {
  /** Databases the predictions may name: a line `SQL<TAB>word` is split only when the word is one of them. */
  dbIds?: ReadonlySet<string>;
  /** The role the file plays, for messages ("prediction file", "candidate file"). */
  what?: string;
}

/** Splits an official `SQL\t----- bird -----\tdb_id` string; without the separator the whole string is SQL. */
export function splitBirdEntry(value: string): { sql: string; dbId?: string; extraSeparators: boolean } {
  const parts = value.split(BIRD_SEPARATOR);
  if (parts.length === 1) return { sql: value, extraSeparators: false };
  return { sql: parts[0], dbId: parts[parts.length - 1].trim(), extraSeparators: parts.length > 2 };
}

/**
 * Object entries in the order they stand in the file (JavaScript objects put integer-like keys first). A repeated
 * key is one entry, as in the dict Python's json.load makes: at its first place, with its last value (JSON.parse's).
 */
function entriesInFileOrder(text: string, outline: JsonOutline, data: Record<string, unknown>): [string, unknown][] {
  const entries = new Map<string, unknown>();
  for (const offset of outline.entryOffsets) {
    const key = jsonStringAt(text, offset);
    entries.set(key, data[key]);
  }
  return [...entries];
}

const SQL_FIELDS = PREDICTION_SQL_FIELDS;

/** The shapes a prediction file takes, said when another file is refused. */
const PREDICTION_SHAPES =
  'a prediction file maps each question to its SQL: the official {"0": "SQL\\t----- bird -----\\tdb_id"} object, ' +
  'a list of {question_id, predicted_sql}, or one SQL a line';

/**
 * A JSON file with no SQL at all (a tables file, `{}`, a report) is refused by name: read as predictions, every
 * question would score 0 as a prediction error and the report would look like a real run.
 */
function holdsNoPrediction(file: string, what: string, kind: string): InputFileError {
  return new InputFileError({ file, message: `${kind}, not a ${what}: it holds no SQL to score (${PREDICTION_SHAPES})` });
}

function fromObjectFile(file: string, text: string, outline: JsonOutline, data: Record<string, unknown>, what: string): PredictionFile {
  const values = Object.values(data);
  if (!values.some((value) => typeof value === 'string')) {
    throw holdsNoPrediction(file, what, jsonFileKind(data) ?? `a JSON object none of whose ${values.length} values is a SQL string`);
  }
  const problems: InputProblem[] = [];
  const entries = entriesInFileOrder(text, outline, data);
  const firstOddKey = entries.findIndex(([key], i) => key !== String(i));
  const predictions = entries.map(([key, value], position): Prediction => {
    const where = `key ${JSON.stringify(key)}`;
    if (typeof value !== 'string') {
      problems.push({ file, where, message: 'value is not a string; scored as an empty query, as the official scripts do' });
      return { sql: ' ', where };
    }
    const { sql, dbId, extraSeparators } = splitBirdEntry(value);
    if (extraSeparators)
      problems.push({ file, where, message: `more than one "${BIRD_SEPARATOR.trim()}" separator; the first part is the SQL` });
    if (position === firstOddKey) {
      problems.push({
        file,
        where,
        message: `keys are not 0, 1, 2, ... (from ${where} on); entries pair with questions by position, as the official scripts do`,
        headline: true,
      });
    }
    return { sql, dbId, where };
  });
  return { file, format: 'bird-object', pairing: 'position', predictions, problems };
}

/** A BIRD question file: its items hold the question and the gold SQL, and no prediction field. */
function looksLikeQuestionFile(data: unknown[]): boolean {
  const objects = data.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item));
  if (objects.length === 0 || objects.length < data.length) return false;
  return objects.every(
    (record) =>
      typeof record.question === 'string' &&
      typeof record.SQL === 'string' &&
      !PREDICTION_ONLY_FIELDS.some((f) => typeof record[f] === 'string'),
  );
}

/** An item that carries SQL: a string, or an object with one of the SQL fields. */
function holdsSql(item: unknown): boolean {
  if (typeof item === 'string') return true;
  if (typeof item !== 'object' || item === null) return false;
  return SQL_FIELDS.some((name) => typeof (item as Record<string, unknown>)[name] === 'string');
}

function fromListFile(file: string, outline: JsonOutline, data: unknown[], what: string): PredictionFile {
  if (looksLikeQuestionFile(data)) {
    throw new InputFileError({
      file,
      message:
        'a BIRD question file (every item has "question" and the gold "SQL", none a prediction field), not a prediction file: scoring it would compare the gold with itself. A prediction file names its SQL predicted_sql (or pred_sql, prediction, sql).',
    });
  }
  const kind = jsonFileKind(data);
  if (kind) throw holdsNoPrediction(file, what, kind);
  if (data.length > 0 && !data.some(holdsSql)) {
    const fields = SQL_FIELDS.join(', ');
    throw holdsNoPrediction(file, what, `a JSON list none of whose ${data.length} items is SQL or has a SQL field (${fields})`);
  }
  const problems: InputProblem[] = [];
  const lines = outline.entryLines;
  const predictions: Prediction[] = [];
  let withIds = 0;
  let goldField: string | undefined;
  data.forEach((item, index) => {
    const where = `item ${index}${lines[index] ? `, line ${lines[index]}` : ''}`;
    if (typeof item === 'string') {
      predictions.push({ ...splitBirdEntry(item), where });
      return;
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({
        file,
        where,
        message: 'expected an object with question_id and predicted_sql, or a SQL string; scored as an empty query',
      });
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
    const gold = GOLD_FIELDS.find((name) => name !== field && typeof record[name] === 'string');
    if (gold) goldField ??= gold;
    predictions.push({
      sql: split.sql,
      dbId: typeof record.db_id === 'string' ? record.db_id : split.dbId,
      questionId,
      where,
      ...(gold ? { goldSql: record[gold] as string } : {}),
    });
  });
  const pairing = withIds === predictions.length && withIds > 0 ? 'question_id' : 'position';
  if (withIds > 0 && pairing === 'position') {
    problems.push({
      file,
      message: `only ${withIds} of ${predictions.length} items have a question_id; all pair by position`,
      headline: true,
    });
  }
  return { file, format: 'json-list', pairing, predictions, problems, ...(goldField ? { goldField } : {}) };
}

/**
 * One SQL a line. A line may end in the official separator and db_id; or the whole file may be in the gold
 * file's shape, every line `SQL<TAB>db_id` (the db_id one of the known databases or, with none known, a single
 * word). Otherwise a tab is part of the SQL (a tab between two words of a query is whitespace to SQLite), and
 * the line is kept whole.
 */
function fromLinesFile(file: string, text: string, dbIds?: ReadonlySet<string>): PredictionFile {
  const lines = text.split('\n').map((raw) => raw.replace(/\r$/, ''));
  if (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  const tabTail = (line: string): string | undefined => {
    const tab = line.lastIndexOf('\t');
    if (tab === -1) return undefined;
    const tail = line.slice(tab + 1).trim();
    return (dbIds ? dbIds.has(tail) : /^\w+$/.test(tail)) ? tail : undefined;
  };
  const goldShaped =
    lines.some((line) => !line.includes(BIRD_SEPARATOR)) &&
    lines.every((line) => line.includes(BIRD_SEPARATOR) || line.trim() === '' || tabTail(line) !== undefined);
  const predictions = lines.map((line, i): Prediction => {
    const where = `line ${i + 1}`;
    if (line.includes(BIRD_SEPARATOR)) return { ...splitBirdEntry(line), where };
    const dbId = goldShaped ? tabTail(line) : undefined;
    return dbId !== undefined ? { sql: line.slice(0, line.lastIndexOf('\t')), dbId, where } : { sql: line, where };
  });
  return { file, format: 'lines', pairing: 'position', predictions, problems: [] };
}

/**
 * Reads a prediction file in any of the formats seen in public BIRD work: the official
 * `{"0": "SQL\t----- bird -----\tdb_id"}` object, a JSON list of {question_id, predicted_sql} objects (or of
 * SQL strings), or plain text with one SQL a line. A JSON file that holds no SQL at all (a BIRD question or
 * tables file, `{}`, a report) is refused with an InputFileError that says what it is; an empty list or a blank
 * file reads as 0 predictions, said as a headline problem.
 */
export function loadPredictions(file: string, options: LoadPredictionOptions = {}): PredictionFile {
  const what = options.what ?? 'prediction file';
  const text = readTextFile(file, what);
  const start = text.trimStart()[0];
  if (start === undefined) {
    const format = path.extname(file).toLowerCase() === '.json' ? 'json-list' : 'lines';
    return { file, format, pairing: 'position', predictions: [], problems: [], empty: true };
  }
  const looksJson = startsAsJson(text) || path.extname(file).toLowerCase() === '.json';
  if (!looksJson) return fromLinesFile(file, text, options.dbIds);
  const data = parseJsonFile(file, text);
  if (typeof data !== 'object' || data === null)
    throw new InputFileError({ file, message: 'a JSON prediction file must hold an object or a list' });
  const outline = outlineJson(text);
  const read = Array.isArray(data)
    ? fromListFile(file, outline, data, what)
    : fromObjectFile(file, text, outline, data as Record<string, unknown>, what);
  read.problems.unshift(...duplicateKeyProblems(file, text, { outline, data }));
  return read;
}
