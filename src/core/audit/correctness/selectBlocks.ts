import { Clauses, closingParen, depths, findClauses } from '../../sql/clauses';
import { isKeyword, isName, upperWord } from '../../sql/keywords';
import { significantTokens, Token } from '../../sql/lexer';
import { outputColumns } from '../../sql/scope';

/**
 * The SELECTs of a gold as the correctness checks need them, read from tokens (the scope module's readers):
 * the whole statement and every parenthesised subquery, each with its select list, ORDER BY keys, literal LIMIT
 * and the columns it shows beside an aggregate; and the probes built from it by splicing its own text, so the
 * gold's SQL is never re-generated.
 */

export interface OrderKey {
  /** The key's expression as written (without ASC/DESC and NULLS FIRST/LAST). */
  text: string;
  descending: boolean;
  /** NULLS FIRST / NULLS LAST written: the NULLs' place was chosen. */
  nullsPlaced: boolean;
  /** A key that names a result column (`ORDER BY 2`, `ORDER BY total` for `… AS total`): its position. */
  outputColumn?: number;
}

export interface SelectBlock {
  /** Token range [start, end) of the SELECT: the whole statement, or a subquery inside its parentheses. */
  start: number;
  end: number;
  topLevel: boolean;
  clauses: Clauses;
  /** Token ranges of the select-list items. */
  items: { start: number; end: number }[];
  orderKeys: OrderKey[];
  /** A LIMIT of literal numbers (`LIMIT n`, `LIMIT n OFFSET m`, `LIMIT m, n`); undefined for none or an expression. */
  limit?: { count: number; offset: number };
  hasLimit: boolean;
  /** Aggregate calls at the block's own level (not in its subqueries), and a window function if any. */
  aggregates: string[];
  windowed: boolean;
  /** Column references of the select list outside any aggregate call (`T2.category` in `SUM(x), T2.category`). */
  bareColumns: string[];
}

export interface ParsedGold {
  body: string;
  tokens: Token[];
  blocks: SelectBlock[];
}

const AGGREGATES = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'TOTAL', 'GROUP_CONCAT', 'STRING_AGG']);
/** Words that follow AS in a CAST and are not columns. */
const NOT_COLUMNS = new Set(['REAL', 'INTEGER', 'INT', 'TEXT', 'NUMERIC', 'FLOAT', 'DOUBLE', 'DATE', 'BLOB']);

const textOf = (body: string, tokens: readonly Token[], from: number, to: number) =>
  from < to ? body.slice(tokens[from].start, tokens[to - 1].end) : '';

/** Splits tokens [from, to) at the commas of depth `base`. */
function commaSeparated(tokens: readonly Token[], from: number, to: number, base: number): { start: number; end: number }[] {
  const depth = depths(tokens);
  const parts: { start: number; end: number }[] = [];
  let start = from;
  for (let k = from; k <= to; k++) {
    if (k < to && !(tokens[k].text === ',' && depth[k] === base)) continue;
    if (k > start) parts.push({ start, end: k });
    start = k + 1;
  }
  return parts;
}

function orderKeysOf(body: string, tokens: readonly Token[], clauses: Clauses, blockEnd: number, names: string[] | undefined): OrderKey[] {
  if (clauses.orderBy === undefined) return [];
  const depth = depths(tokens);
  const to = clauses.limit ?? blockEnd;
  return commaSeparated(tokens, clauses.orderBy + 2, to, depth[clauses.orderBy]).map(({ start, end }) => {
    let last = end;
    let nullsPlaced = false;
    if (upperWord(tokens[last - 2]) === 'NULLS') {
      nullsPlaced = true;
      last -= 2;
    }
    const direction = upperWord(tokens[last - 1]);
    if (direction === 'ASC' || direction === 'DESC') last--;
    const key: OrderKey = { text: textOf(body, tokens, start, last), descending: direction === 'DESC', nullsPlaced };
    if (last - start === 1 && tokens[start].kind === 'number' && /^\d+$/.test(tokens[start].text))
      key.outputColumn = Number(tokens[start].text) - 1;
    else if (last - start === 1 && isName(tokens[start])) {
      const position = names?.indexOf(identifierText(tokens[start]).toLowerCase()) ?? -1;
      if (position >= 0) key.outputColumn = position;
    }
    return key;
  });
}

const identifierText = (token: Token) => (token.kind === 'quoted' ? token.text.slice(1, -1) : token.text);

function limitOf(tokens: readonly Token[], limit: number | undefined, end: number): SelectBlock['limit'] {
  if (limit === undefined) return undefined;
  const parts = tokens.slice(limit + 1, end);
  const number = (t: Token | undefined) => (t?.kind === 'number' && /^\d+$/.test(t.text) ? Number(t.text) : undefined);
  if (parts.length === 1 && number(parts[0]) !== undefined) return { count: number(parts[0])!, offset: 0 };
  if (parts.length === 3 && upperWord(parts[1]) === 'OFFSET' && number(parts[0]) !== undefined && number(parts[2]) !== undefined)
    return { count: number(parts[0])!, offset: number(parts[2])! };
  if (parts.length === 3 && parts[1].text === ',' && number(parts[0]) !== undefined && number(parts[2]) !== undefined)
    return { count: number(parts[2])!, offset: number(parts[0])! };
  return undefined;
}

/** Aggregate calls and bare column references of a select list, at its own level (subqueries skipped). */
function selectListFacts(body: string, tokens: readonly Token[], items: SelectBlock['items']) {
  const aggregates: string[] = [];
  const bareColumns: string[] = [];
  let windowed = false;
  for (const item of items) {
    for (let k = item.start; k < item.end; k++) {
      const token = tokens[k];
      const word = upperWord(token);
      if (word === 'OVER') windowed = true;
      if (token.text === '(') {
        // A subquery in the select list is its own block.
        if (upperWord(tokens[k + 1]) === 'SELECT') k = closingParen(tokens, k);
        continue;
      }
      if (!isName(token) || isKeyword(token)) continue;
      if (tokens[k + 1]?.text === '(') {
        if (AGGREGATES.has(word)) {
          const close = closingParen(tokens, k + 1);
          aggregates.push(textOf(body, tokens, k, close + 1));
          k = close;
        }
        continue; // a function name
      }
      if (upperWord(tokens[k - 1]) === 'AS') continue; // an alias or a CAST's type
      if (NOT_COLUMNS.has(word)) continue;
      // An alias without AS after a complete operand ends the item.
      if (k === item.end - 1 && k > item.start && (tokens[k - 1].text === ')' || (isName(tokens[k - 1]) && tokens[k - 1].text !== '.')))
        continue;
      let name = token.text;
      while (tokens[k + 1]?.text === '.' && isName(tokens[k + 2])) {
        name += `.${tokens[k + 2].text}`;
        k += 2;
      }
      bareColumns.push(name);
    }
  }
  return { aggregates, bareColumns: [...new Set(bareColumns)], windowed };
}

function blockAt(body: string, tokens: Token[], start: number, end: number, topLevel: boolean): SelectBlock | undefined {
  const clauses = findClauses(tokens, start, end);
  if (!clauses) return undefined;
  const depth = depths(tokens);
  const first = (clauses.distinct ?? clauses.select) + 1 + (upperWord(tokens[clauses.select + 1]) === 'ALL' ? 1 : 0);
  const listEnd =
    clauses.from ?? [clauses.where, clauses.groupBy, clauses.having, clauses.orderBy, clauses.limit, end].find((i) => i !== undefined)!;
  const items = commaSeparated(tokens, first, listEnd, depth[clauses.select]);
  const names = outputColumns(tokens, start, end);
  return {
    start,
    end,
    topLevel,
    clauses,
    items,
    orderKeys: orderKeysOf(body, tokens, clauses, end, names),
    limit: limitOf(tokens, clauses.limit, end),
    hasLimit: clauses.limit !== undefined,
    ...selectListFacts(body, tokens, items),
  };
}

/** The gold's SELECT blocks: the statement first, then each subquery in reading order. */
export function parseGold(body: string): ParsedGold {
  const tokens = significantTokens(body);
  const blocks: SelectBlock[] = [];
  const top = blockAt(body, tokens, 0, tokens.length, true);
  if (top) blocks.push(top);
  tokens.forEach((token, k) => {
    if (token.text !== '(' || !['SELECT', 'WITH'].includes(upperWord(tokens[k + 1]))) return;
    const close = closingParen(tokens, k);
    const block = blockAt(body, tokens, k + 1, close === -1 ? tokens.length : close, false);
    if (block) blocks.push(block);
  });
  return { body, tokens, blocks };
}

/** The block's own text, with some token ranges replaced (character positions come from the tokens). */
export function spliceBlock(gold: ParsedGold, block: SelectBlock, edits: { from: number; to: number; text: string }[]): string {
  const { body, tokens } = gold;
  let out = '';
  let at = tokens[block.start].start;
  for (const edit of [...edits].sort((a, b) => a.from - b.from)) {
    const from = edit.from < tokens.length ? tokens[edit.from].start : body.length;
    out += body.slice(at, from) + edit.text;
    at = edit.to > edit.from ? tokens[edit.to - 1].end : from;
  }
  return out + body.slice(at, tokens[block.end - 1].end);
}

/** The block's text (what runs on its own when it is not correlated). */
export const blockText = (gold: ParsedGold, block: SelectBlock): string => spliceBlock(gold, block, []);

/** Text of tokens [from, to) of the gold. */
export const tokensText = (gold: ParsedGold, from: number, to: number): string => textOf(gold.body, gold.tokens, from, to);

/**
 * The block with its ORDER BY keys added as extra result columns (unless a key names a result column already) and
 * its LIMIT widened to `window` rows from the first: the rows around the cut and their keys. Undefined where
 * adding columns would change the rows (SELECT DISTINCT) or the block has no literal LIMIT.
 */
export function rankingProbe(
  gold: ParsedGold,
  block: SelectBlock,
  window: number,
): { sql: string; keyColumns: (number | 'extra')[] } | undefined {
  const { clauses } = block;
  if (!block.limit || clauses.compound || block.orderKeys.length === 0) return undefined;
  const extra = block.orderKeys.filter((k) => k.outputColumn === undefined);
  if (extra.length && clauses.distinct !== undefined) return undefined;
  const listEnd = block.items[block.items.length - 1].end;
  const added = extra.map((k, i) => `, ${k.text} AS "__ves_lens_key_${i}"`).join('');
  const sql = spliceBlock(gold, block, [
    { from: listEnd, to: listEnd, text: added },
    { from: clauses.limit!, to: block.end, text: `LIMIT ${window}` },
  ]);
  return { sql, keyColumns: block.orderKeys.map((k) => k.outputColumn ?? 'extra') };
}

/** The block with its LIMIT widened to `window` rows from the first (for a LIMIT without ORDER BY). */
export function widenedLimit(gold: ParsedGold, block: SelectBlock, window: number): string {
  return spliceBlock(gold, block, [{ from: block.clauses.limit!, to: block.end, text: `LIMIT ${window}` }]);
}

/**
 * How many different values a bare column takes among the rows one output row aggregates (the most over all
 * groups), NULL counting as a value: above 1, SQLite's pick depends on which row it met last.
 */
export function bareColumnProbe(gold: ParsedGold, block: SelectBlock, column: string): string | undefined {
  const { clauses } = block;
  if (clauses.from === undefined || clauses.compound || clauses.withClause) return undefined;
  const tailEnd = clauses.orderBy ?? clauses.limit ?? block.end;
  const source = tokensText(gold, clauses.from, tailEnd);
  const values = `COUNT(DISTINCT ${column}) + CASE WHEN COUNT(*) > COUNT(${column}) THEN 1 ELSE 0 END`;
  return clauses.groupBy === undefined ? `SELECT ${values} ${source}` : `SELECT MAX(n) FROM (SELECT ${values} AS n ${source})`;
}
