import { Token, tokensOf } from './lexer';

/**
 * Which SQL dialect a file of queries (a gold file, a prediction file) is written in, from what the official BIRD
 * files of each dialect use: MySQL's backticks, `CAST(… AS DOUBLE | SIGNED)`, YEAR(), DATE_FORMAT(); PostgreSQL's
 * `::` casts, ILIKE, NULLS FIRST, double-quoted mixed-case names, EXTRACT(), TO_CHAR(); SQLite's IIF(), STRFTIME(),
 * JULIANDAY(), SUBSTR(x, -n). A feature several dialects share (IFNULL: MySQL and SQLite; LEFT(): MySQL and
 * PostgreSQL) counts for each of them, so the file's whole weight of evidence decides, never one query. Plain SQL
 * that every engine runs says nothing: such a file is `undecided` and nothing is refused for it.
 */

export type Dialect = 'sqlite' | 'postgres' | 'mysql';
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];

/** How each dialect is named to a person. */
export const DIALECT_NAMES: Record<Dialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL' };

interface Feature {
  /** What a person is told (`backquoted names`). */
  name: string;
  /** The dialects whose official files use it, with how much one query with it weighs for each. */
  weights: Partial<Record<Dialect, number>>;
  /** Whether the query at token `i` (significant tokens, upper-cased words) shows it. */
  at: (tokens: readonly Token[], upper: readonly string[], i: number) => boolean;
}

const word = (name: string) => (_tokens: readonly Token[], upper: readonly string[], i: number) => upper[i] === name;
const call = (name: string) => (tokens: readonly Token[], upper: readonly string[], i: number) =>
  upper[i] === name && tokens[i + 1]?.text === '(';
/** `CAST(… AS <type>` : the type after AS, where AS follows an expression inside CAST's parentheses. */
const castAs =
  (...types: string[]) =>
  (tokens: readonly Token[], upper: readonly string[], i: number) =>
    types.includes(upper[i]) && upper[i - 1] === 'AS' && tokens[i + 1]?.text === ')';

const FEATURES: readonly Feature[] = [
  { name: 'backquoted names', weights: { mysql: 1, sqlite: 0.5 }, at: (t, _u, i) => t[i].kind === 'quoted' && t[i].text.startsWith('`') },
  { name: 'CAST(… AS DOUBLE)', weights: { mysql: 3 }, at: castAs('DOUBLE') },
  { name: 'CAST(… AS SIGNED / UNSIGNED / CHAR)', weights: { mysql: 4 }, at: castAs('SIGNED', 'UNSIGNED', 'CHAR') },
  { name: 'CAST(… AS DECIMAL)', weights: { mysql: 1, postgres: 0.5 }, at: castAs('DECIMAL') },
  {
    name: 'MySQL date functions (YEAR(), MONTH(), DATE_FORMAT(), DATEDIFF(), TIMESTAMPDIFF(), STR_TO_DATE(), CURDATE())',
    weights: { mysql: 3 },
    at: (t, u, i) =>
      ['YEAR', 'MONTH', 'DAYOFWEEK', 'DATE_FORMAT', 'DATEDIFF', 'TIMESTAMPDIFF', 'STR_TO_DATE', 'CURDATE', 'DATE_SUB', 'DATE_ADD'].some(
        (name) => call(name)(t, u, i),
      ),
  },
  { name: 'IF()', weights: { mysql: 2 }, at: call('IF') },
  {
    name: 'LOCATE() / TRUNCATE() / LCASE() / UCASE()',
    weights: { mysql: 3 },
    at: (t, u, i) => ['LOCATE', 'TRUNCATE', 'LCASE', 'UCASE'].some((n) => call(n)(t, u, i)),
  },
  { name: 'IFNULL()', weights: { mysql: 0.5, sqlite: 0.5 }, at: call('IFNULL') },
  { name: 'LEFT() / RIGHT()', weights: { mysql: 1, postgres: 0.5 }, at: (t, u, i) => call('LEFT')(t, u, i) || call('RIGHT')(t, u, i) },
  { name: 'CONCAT()', weights: { mysql: 1, postgres: 0.5 }, at: call('CONCAT') },
  { name: '`::` casts', weights: { postgres: 4 }, at: (t, _u, i) => t[i].text === ':' && t[i + 1]?.text === ':' },
  { name: 'ILIKE', weights: { postgres: 4 }, at: word('ILIKE') },
  {
    name: 'NULLS FIRST / LAST',
    weights: { postgres: 2 },
    at: (_t, u, i) => u[i] === 'NULLS' && (u[i + 1] === 'FIRST' || u[i + 1] === 'LAST'),
  },
  {
    name: 'double-quoted mixed-case names',
    weights: { postgres: 1 },
    at: (t, _u, i) => t[i].kind === 'quoted' && t[i].text.startsWith('"') && /[a-z]/.test(t[i].text) && /[A-Z]/.test(t[i].text),
  },
  { name: 'EXTRACT()', weights: { postgres: 1.5, mysql: 0.5 }, at: call('EXTRACT') },
  {
    name: 'PostgreSQL functions (TO_CHAR(), TO_DATE(), DATE_PART(), STRING_AGG(), AGE(), DATE_TRUNC())',
    weights: { postgres: 3 },
    at: (t, u, i) => ['TO_CHAR', 'TO_DATE', 'TO_TIMESTAMP', 'DATE_PART', 'STRING_AGG', 'AGE', 'DATE_TRUNC'].some((n) => call(n)(t, u, i)),
  },
  {
    name: 'DISTINCT ON / FILTER (WHERE',
    weights: { postgres: 3 },
    at: (t, u, i) => (u[i] === 'DISTINCT' && u[i + 1] === 'ON') || (u[i] === 'FILTER' && t[i + 1]?.text === '(' && u[i + 2] === 'WHERE'),
  },
  { name: 'NULLIF()', weights: { postgres: 0.3 }, at: call('NULLIF') },
  { name: 'IIF()', weights: { sqlite: 3 }, at: call('IIF') },
  { name: 'STRFTIME() / JULIANDAY()', weights: { sqlite: 4 }, at: (t, u, i) => call('STRFTIME')(t, u, i) || call('JULIANDAY')(t, u, i) },
  { name: 'CAST(… AS REAL)', weights: { sqlite: 1, postgres: 0.3 }, at: castAs('REAL') },
  {
    name: 'SUBSTR(x, -n)',
    weights: { sqlite: 1.5, mysql: 0.5 },
    at: (t, u, i) => {
      if (!call('SUBSTR')(t, u, i) && !call('SUBSTRING')(t, u, i)) return false;
      // The second argument: after the first top-level comma inside the call's parentheses.
      for (let j = i + 2, depth = 0; j < t.length && depth >= 0; j++) {
        if (t[j].text === '(') depth++;
        else if (t[j].text === ')') depth--;
        else if (depth === 0 && t[j].text === ',') return t[j + 1]?.text === '-';
      }
      return false;
    },
  },
  { name: 'GROUP_CONCAT()', weights: { sqlite: 0.5, mysql: 0.5 }, at: call('GROUP_CONCAT') },
  { name: 'INSTR()', weights: { sqlite: 0.5, mysql: 0.5 }, at: call('INSTR') },
  { name: 'TOTAL() / TYPEOF()', weights: { sqlite: 2 }, at: (t, u, i) => call('TOTAL')(t, u, i) || call('TYPEOF')(t, u, i) },
];

export interface DialectEvidence {
  feature: string;
  /** Queries that show it. */
  queries: number;
}

export interface DialectReading {
  /** The dialect the file is written in, or undefined when its queries say too little (plain SQL, too few). */
  dialect: Dialect | undefined;
  /** Each dialect's weight of evidence. */
  scores: Record<Dialect, number>;
  /** The features the file shows for its dialect, most frequent first (what a refusal names). */
  evidence: DialectEvidence[];
  queries: number;
}

/** Evidence below this says nothing (a few queries of plain SQL with one shared function). */
const MIN_SCORE = 3;
/** The first dialect's evidence must outweigh the second's by this factor. */
const MARGIN = 1.75;

/** Reads the dialect of a file's queries. */
export function readDialect(queries: Iterable<string>): DialectReading {
  const scores: Record<Dialect, number> = { sqlite: 0, postgres: 0, mysql: 0 };
  const seen = new Map<Feature, number>();
  let count = 0;
  for (const sql of queries) {
    count++;
    // A query's first 20,000 characters say enough (a 30 MB prediction's tokens would cost seconds).
    const tokens = [...tokensOf(sql.length > 20_000 ? sql.slice(0, 20_000) : sql)].filter(
      (token) => token.kind !== 'space' && token.kind !== 'comment',
    );
    const upper = tokens.map((token) => (token.kind === 'word' ? token.text.toUpperCase() : ''));
    for (const feature of FEATURES) {
      if (!tokens.some((_token, i) => feature.at(tokens, upper, i))) continue;
      seen.set(feature, (seen.get(feature) ?? 0) + 1);
      for (const [dialect, weight] of Object.entries(feature.weights) as [Dialect, number][]) scores[dialect] += weight;
    }
  }
  const [first, second] = [...DIALECTS].sort((a, b) => scores[b] - scores[a]);
  const dialect = scores[first] >= MIN_SCORE && scores[first] >= MARGIN * scores[second] ? first : undefined;
  const evidence = [...seen]
    .filter(([feature]) => dialect !== undefined && (feature.weights[dialect] ?? 0) > 0)
    .sort((a, b) => b[1] * (b[0].weights[dialect!] ?? 0) - a[1] * (a[0].weights[dialect!] ?? 0))
    .map(([feature, queries]) => ({ feature: feature.name, queries }));
  return { dialect, scores, evidence, queries: count };
}

/** `backquoted names in 480 of 500 queries, CAST(… AS DOUBLE) in 45`: the strongest evidence, for a message. */
export function evidenceText(reading: DialectReading, most = 3): string {
  return reading.evidence
    .slice(0, most)
    .map((e, i) => `${e.feature} in ${e.queries}${i === 0 ? ` of ${reading.queries} queries` : ''}`)
    .join(', ');
}

/** A file of queries a run is given (its option and path, for the message), e.g. `--gold mini_dev_mysql_gold.sql`. */
export interface DialectInput {
  label: string;
  queries: Iterable<string>;
}

/** An input whose queries read as another dialect than the engine's. */
export interface DialectMismatch {
  label: string;
  reading: DialectReading & { dialect: Dialect };
  engine: Dialect;
}

/**
 * The first input whose queries read as another dialect than `engine`'s (the engine's name: sqlite, postgres,
 * mysql), or undefined when every input reads as the engine's dialect or says too little. Queries of another
 * dialect fail or return other rows on the engine, and each such gold or prediction would be scored 0 without a
 * word. Each face words the mismatch with what to change there (an option, a setting).
 */
export function dialectMismatch(engine: string, inputs: readonly DialectInput[]): DialectMismatch | undefined {
  if (!(DIALECTS as readonly string[]).includes(engine)) return undefined; // an engine this check does not know
  for (const input of inputs) {
    const reading = readDialect(input.queries);
    if (reading.dialect !== undefined && reading.dialect !== engine)
      return { label: input.label, reading: reading as DialectMismatch['reading'], engine: engine as Dialect };
  }
  return undefined;
}

/** `--gold x reads as MySQL SQL (…), but the engine is SQLite: ` followed by what to do (`advice`). */
export function dialectMismatchText(mismatch: DialectMismatch, advice: string): string {
  return (
    `${mismatch.label} reads as ${DIALECT_NAMES[mismatch.reading.dialect]} SQL (${evidenceText(mismatch.reading)}), ` +
    `but the engine is ${DIALECT_NAMES[mismatch.engine]}: ${advice}`
  );
}
