import { Token } from './lexer';

/**
 * The one keyword set of the SQL readers: words that are never a bare alias or a column name in the SQL this
 * tool reads, so a FROM item ends at them (`FROM t WHERE`, `FROM t LEFT JOIN`) and a column reference never
 * starts with them. After an explicit AS any name is an alias (`FROM t AS left` is valid SQLite).
 */
export const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'ALL AND AS ASC BETWEEN BY CASE CAST COLLATE CROSS CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DESC DISTINCT ' +
    'ELSE END ESCAPE EXCEPT EXISTS FALSE FROM FULL GLOB GROUP HAVING IN INDEXED INNER INTERSECT IS JOIN LEFT LIKE ' +
    'LIMIT NATURAL NOT NULL OFFSET ON OR ORDER OUTER RETURNING RIGHT SELECT SET THEN TRUE UNION USING VALUES WHEN ' +
    'WHERE WINDOW WITH'
  ).split(' '),
);

/** Keywords that end a FROM clause at its own depth. */
export const FROM_CLAUSE_ENDS: ReadonlySet<string> = new Set([
  'WHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'WINDOW',
  'RETURNING',
]);

/** Compound operators: a SELECT made of several simple ones. */
export const COMPOUND_OPERATORS: ReadonlySet<string> = new Set(['UNION', 'EXCEPT', 'INTERSECT']);

/** A bare word's upper-case text; '' for anything else (quoted names included, so `"order"` is never ORDER). */
export const upperWord = (token: Token | undefined): string => (token?.kind === 'word' ? token.text.toUpperCase() : '');

export const isKeyword = (token: Token | undefined): boolean => KEYWORDS.has(upperWord(token));

export const wordIs = (token: Token | undefined, ...words: string[]): boolean => words.includes(upperWord(token));

/** A token that can name something: a bare word or a quoted identifier. */
export const isName = (token: Token | undefined): boolean => token?.kind === 'word' || token?.kind === 'quoted';
