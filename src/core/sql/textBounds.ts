import { tokenize } from './lexer';

interface TextBounds {
  /** Characters of one statement. */
  chars: number;
  /** Tokens other than spaces and comments; also bounds an operator chain's depth (`1+1+…`), which recurses. */
  tokens: number;
  /** Nesting of parentheses. */
  depth: number;
}

/**
 * How much SQL text the analyses that read it in JavaScript take on. Their token arrays, node-sql-parser's tree
 * (and the recursion that walks it) grow with the text, and a 31 MB prediction took the process past 3 GiB.
 * BIRD's longest query (gold or prediction) has 3.5 thousand characters. `tree`: node-sql-parser and what reads
 * its tree or compiled programs (it recurses on every nesting and operator); `tokens`: the analyses that walk
 * tokens in loops (hint rules, plans). Past its bounds an analysis steps aside with a note, while the query
 * itself still runs in the engine under its row, byte and heap bounds and is scored as the official scripts do.
 */
export const SQL_ANALYSIS_BOUNDS: Readonly<Record<'tree' | 'tokens', TextBounds>> = {
  tree: { chars: 100_000, tokens: 4_000, depth: 100 },
  tokens: { chars: 2 ** 20, tokens: 100_000, depth: 1_000 },
};

const count = (n: number) => n.toLocaleString('en-US');

/** What a SQL text is past, reading at most the bounds' worth of it; undefined when it is within them. */
function pastBound(sql: string, bounds: TextBounds): string | undefined {
  if (sql.length > bounds.chars) return `it has ${count(sql.length)} characters, past the ${count(bounds.chars)} analysed`;
  let tokens = 0;
  let depth = 0;
  for (const token of tokenize(sql)) {
    if (token.kind === 'space' || token.kind === 'comment') continue;
    if (++tokens > bounds.tokens) return `it has more than ${count(bounds.tokens)} tokens, the most analysed`;
    if (token.text === '(' && ++depth > bounds.depth)
      return `its parentheses nest deeper than ${count(bounds.depth)} levels, the most analysed`;
    if (token.text === ')') depth--;
  }
  return undefined;
}

/**
 * The one guard of the analyses that read SQL: undefined when `sql` is within the bounds of its kind of analysis
 * (SQL_ANALYSIS_BOUNDS), else the note the analysis gives instead of its result (`what`: which analysis steps
 * aside, e.g. "hints"). The guard's own work is bounded too: it reads at most the bounds' worth of the text.
 */
export function analysisBoundNote(sql: string, what: string, kind: 'tree' | 'tokens' = 'tree'): string | undefined {
  const reason = pastBound(sql, SQL_ANALYSIS_BOUNDS[kind]);
  return (
    reason && `${what}: not analysed, the SQL is too large (${reason}, so memory stays bounded); running and scoring it are not affected`
  );
}
