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
  /**
   * The tokens it can be seen at: these upper-cased words, or a quoted name, or `:` (each query is read in one pass
   * that tries at a token only the features it can start; trying every feature at every token took 0.4 s a run).
   */
  on: readonly string[] | 'quoted' | ':';
  /** Whether the query at token `i` (significant tokens, upper-cased words) shows it. */
  at: (tokens: readonly Token[], upper: readonly string[], i: number) => boolean;
}

/** A call of one of these functions: the name (Feature.on) followed by `(`. */
const called = (tokens: readonly Token[], _upper: readonly string[], i: number) => tokens[i + 1]?.text === '(';
/** `CAST(… AS <type>` : the type after AS, where AS follows an expression inside CAST's parentheses. */
const castAs = (tokens: readonly Token[], upper: readonly string[], i: number) => upper[i - 1] === 'AS' && tokens[i + 1]?.text === ')';

const FEATURES: readonly Feature[] = [
  { name: 'backquoted names', weights: { mysql: 1, sqlite: 0.5 }, on: 'quoted', at: (t, _u, i) => t[i].text.startsWith('`') },
  { name: 'CAST(… AS DOUBLE)', weights: { mysql: 3 }, on: ['DOUBLE'], at: castAs },
  { name: 'CAST(… AS SIGNED / UNSIGNED / CHAR)', weights: { mysql: 4 }, on: ['SIGNED', 'UNSIGNED', 'CHAR'], at: castAs },
  { name: 'CAST(… AS DECIMAL)', weights: { mysql: 1, postgres: 0.5 }, on: ['DECIMAL'], at: castAs },
  {
    name: 'MySQL date functions (YEAR(), MONTH(), DATE_FORMAT(), DATEDIFF(), TIMESTAMPDIFF(), STR_TO_DATE(), CURDATE())',
    weights: { mysql: 3 },
    on: ['YEAR', 'MONTH', 'DAYOFWEEK', 'DATE_FORMAT', 'DATEDIFF', 'TIMESTAMPDIFF', 'STR_TO_DATE', 'CURDATE', 'DATE_SUB', 'DATE_ADD'],
    at: called,
  },
  { name: 'IF()', weights: { mysql: 2 }, on: ['IF'], at: called },
  { name: 'LOCATE() / TRUNCATE() / LCASE() / UCASE()', weights: { mysql: 3 }, on: ['LOCATE', 'TRUNCATE', 'LCASE', 'UCASE'], at: called },
  { name: 'IFNULL()', weights: { mysql: 0.5, sqlite: 0.5 }, on: ['IFNULL'], at: called },
  { name: 'LEFT() / RIGHT()', weights: { mysql: 1, postgres: 0.5 }, on: ['LEFT', 'RIGHT'], at: called },
  { name: 'CONCAT()', weights: { mysql: 1, postgres: 0.5 }, on: ['CONCAT'], at: called },
  { name: '`::` casts', weights: { postgres: 4 }, on: ':', at: (t, _u, i) => t[i + 1]?.text === ':' },
  { name: 'ILIKE', weights: { postgres: 4 }, on: ['ILIKE'], at: () => true },
  { name: 'NULLS FIRST / LAST', weights: { postgres: 2 }, on: ['NULLS'], at: (_t, u, i) => u[i + 1] === 'FIRST' || u[i + 1] === 'LAST' },
  {
    name: 'double-quoted mixed-case names',
    weights: { postgres: 1 },
    on: 'quoted',
    at: (t, _u, i) => t[i].text.startsWith('"') && /[a-z]/.test(t[i].text) && /[A-Z]/.test(t[i].text),
  },
  { name: 'EXTRACT()', weights: { postgres: 1.5, mysql: 0.5 }, on: ['EXTRACT'], at: called },
  {
    name: 'PostgreSQL functions (TO_CHAR(), TO_DATE(), DATE_PART(), STRING_AGG(), AGE(), DATE_TRUNC())',
    weights: { postgres: 3 },
    on: ['TO_CHAR', 'TO_DATE', 'TO_TIMESTAMP', 'DATE_PART', 'STRING_AGG', 'AGE', 'DATE_TRUNC'],
    at: called,
  },
  {
    name: 'DISTINCT ON / FILTER (WHERE',
    weights: { postgres: 3 },
    on: ['DISTINCT', 'FILTER'],
    at: (t, u, i) => (u[i] === 'DISTINCT' && u[i + 1] === 'ON') || (u[i] === 'FILTER' && t[i + 1]?.text === '(' && u[i + 2] === 'WHERE'),
  },
  { name: 'NULLIF()', weights: { postgres: 0.3 }, on: ['NULLIF'], at: called },
  { name: 'IIF()', weights: { sqlite: 3 }, on: ['IIF'], at: called },
  { name: 'STRFTIME() / JULIANDAY()', weights: { sqlite: 4 }, on: ['STRFTIME', 'JULIANDAY'], at: called },
  { name: 'CAST(… AS REAL)', weights: { sqlite: 1, postgres: 0.3 }, on: ['REAL'], at: castAs },
  {
    name: 'SUBSTR(x, -n)',
    weights: { sqlite: 1.5, mysql: 0.5 },
    on: ['SUBSTR', 'SUBSTRING'],
    at: (t, _u, i) => {
      if (t[i + 1]?.text !== '(') return false;
      // The second argument: after the first top-level comma inside the call's parentheses.
      for (let j = i + 2, depth = 0; j < t.length && depth >= 0; j++) {
        if (t[j].text === '(') depth++;
        else if (t[j].text === ')') depth--;
        else if (depth === 0 && t[j].text === ',') return t[j + 1]?.text === '-';
      }
      return false;
    },
  },
  { name: 'GROUP_CONCAT()', weights: { sqlite: 0.5, mysql: 0.5 }, on: ['GROUP_CONCAT'], at: called },
  { name: 'INSTR()', weights: { sqlite: 0.5, mysql: 0.5 }, on: ['INSTR'], at: called },
  { name: 'TOTAL() / TYPEOF()', weights: { sqlite: 2 }, on: ['TOTAL', 'TYPEOF'], at: called },
];

/** The features each token can start: by upper-cased word, and those of quoted names and of `:`. */
const FEATURES_ON = new Map<string, Feature[]>();
for (const feature of FEATURES)
  for (const key of typeof feature.on === 'string' ? [`\0${feature.on}`] : feature.on)
    FEATURES_ON.set(key, [...(FEATURES_ON.get(key) ?? []), feature]);

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
    const shown = new Set<Feature>();
    for (let i = 0; i < tokens.length; i++) {
      const key = tokens[i].kind === 'word' ? upper[i] : tokens[i].kind === 'quoted' ? '\0quoted' : tokens[i].text === ':' ? '\0:' : '';
      for (const feature of FEATURES_ON.get(key) ?? []) if (!shown.has(feature) && feature.at(tokens, upper, i)) shown.add(feature);
    }
    for (const feature of shown) {
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
