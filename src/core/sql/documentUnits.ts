import { findNodeAtLocation, Node as JsonNode, parseTree } from 'jsonc-parser';
import { BIRD_SEPARATOR, looksLikePredictionText, PREDICTION_SQL_FIELDS } from '../bird/predictionFields';
import { splitStatements, StatementSpan } from './statements';

/**
 * One piece of SQL in a document, where the editor shows lenses and diagnostics: a statement of a .sql file,
 * or the SQL inside a BIRD question or prediction JSON string.
 */
export interface SqlUnit {
  /** The SQL as SQLite would read it (JSON escapes decoded). */
  sql: string;
  /** Document offset of each character of `sql` (JSON escapes make them differ), plus one past the end. */
  offsets: number[];
  /** Which question it answers: from `-- bird: <id>` or the JSON entry (a .sql statement is never bound by its position). */
  questionId?: number | string;
  questionIndex?: number;
  dbId?: string;
  /** gold SQL of a question file, or a prediction. */
  role: 'gold' | 'prediction' | 'query';
  /** For .sql statements: the `-- ves-lens-ignore` comments etc. are in the document text before `start`. */
  start: number;
  end: number;
  /** For .sql statements: the statement itself, with the comments before it (`-- ves-lens-ignore`). */
  statement?: StatementSpan;
}

export type DocumentKind = 'sql' | 'bird-questions' | 'bird-predictions' | 'other';

const BIRD_COMMENT = /--\s*bird:\s*(\S+)/i;
const DB_COMMENT = /--\s*db:\s*(\S+)/i;

/** Document offset for an offset within a unit's SQL. */
export function documentOffset(unit: SqlUnit, sqlOffset: number): number {
  return unit.offsets[Math.max(0, Math.min(sqlOffset, unit.offsets.length - 1))];
}

function sqlStatements(text: string): SqlUnit[] {
  return splitStatements(text).map((statement) => {
    const unit: SqlUnit = {
      sql: statement.text,
      offsets: Array.from({ length: statement.text.length + 1 }, (_, i) => statement.start + i),
      role: 'query',
      start: statement.start,
      end: statement.end,
      statement,
    };
    for (const comment of statement.leadingComments) {
      const bird = BIRD_COMMENT.exec(comment.text);
      if (bird) {
        unit.questionId = /^\d+$/.test(bird[1]) ? Number(bird[1]) : bird[1];
      }
      const db = DB_COMMENT.exec(comment.text);
      if (db) unit.dbId = db[1];
    }
    return unit;
  });
}

/** Decodes a JSON string literal at `node`, mapping every decoded character back to its document offset. */
function decodeJsonString(text: string, node: JsonNode): { value: string; offsets: number[] } {
  let value = '';
  const offsets: number[] = [];
  const end = node.offset + node.length - 1; // the closing quote
  for (let i = node.offset + 1; i < end; i++) {
    offsets.push(i);
    if (text[i] !== '\\') {
      value += text[i];
      continue;
    }
    const escape = text[i + 1];
    if (escape === 'u') {
      value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      i += 5;
    } else {
      value += { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' }[escape as 'n'] ?? escape;
      i += 1;
    }
  }
  offsets.push(end);
  return { value, offsets };
}

function stringUnit(text: string, node: JsonNode, role: SqlUnit['role'], fields: Partial<SqlUnit>): SqlUnit | undefined {
  if (node.type !== 'string') return undefined;
  const { value, offsets } = decodeJsonString(text, node);
  let sql = value;
  let dbId = fields.dbId;
  if (role === 'prediction' && value.includes(BIRD_SEPARATOR)) {
    const at = value.indexOf(BIRD_SEPARATOR);
    sql = value.slice(0, at);
    dbId = value.slice(at + BIRD_SEPARATOR.length).trim() || dbId;
  }
  return { ...fields, sql, dbId, offsets: offsets.slice(0, sql.length + 1), role, start: offsets[0], end: offsets[sql.length] };
}

/** What a document holds, from its language and (for JSON) its shape. */
export function documentKind(languageId: string, text: string): DocumentKind {
  if (languageId === 'sql') return 'sql';
  if (languageId !== 'json' && languageId !== 'jsonc') return 'other';
  const head = text.trimStart().slice(0, 2000);
  if (head.startsWith('[') && /"db_id"\s*:/.test(head) && /"SQL"\s*:/.test(head)) return 'bird-questions';
  if (looksLikePredictionText(head)) return 'bird-predictions';
  return 'other';
}

/** The SQL units of a document, for lenses and diagnostics. */
export function sqlUnits(languageId: string, text: string): SqlUnit[] {
  const kind = documentKind(languageId, text);
  if (kind === 'sql') return sqlStatements(text);
  if (kind === 'other') return [];
  const root = parseTree(text);
  if (!root?.children) return [];
  const units: SqlUnit[] = [];
  root.children.forEach((child, index) => {
    if (kind === 'bird-questions' && child.type === 'object') {
      const get = (key: string) => findNodeAtLocation(child, [key]);
      const sqlNode = get('SQL');
      const questionId = get('question_id')?.value;
      const unit = sqlNode && stringUnit(text, sqlNode, 'gold', { questionIndex: index, questionId, dbId: get('db_id')?.value });
      if (unit) units.push(unit);
    } else if (kind === 'bird-predictions' && root.type === 'object' && child.type === 'property' && child.children?.[1]) {
      // Official object: paired by position, as the official scripts do.
      const unit = stringUnit(text, child.children[1], 'prediction', { questionIndex: index });
      if (unit) units.push(unit);
    } else if (kind === 'bird-predictions' && child.type === 'object') {
      const get = (key: string) => findNodeAtLocation(child, [key]);
      const sqlNode = PREDICTION_SQL_FIELDS.map(get).find((n) => n?.type === 'string');
      const questionId = get('question_id')?.value;
      const unit =
        sqlNode &&
        stringUnit(
          text,
          sqlNode,
          'prediction',
          questionId === undefined ? { questionIndex: index } : { questionId, dbId: get('db_id')?.value },
        );
      if (unit) units.push(unit);
    }
  });
  return units;
}
