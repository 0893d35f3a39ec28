/**
 * A small SQLite lexer: just enough to find statement boundaries, comments, strings and keywords.
 * Parsing proper is node-sql-parser's job; this must never fail, whatever the input.
 */

export type TokenKind =
  | 'space'
  | 'comment'
  | 'string' // '...'
  | 'quoted' // "...", `...`, [...]: identifiers
  | 'word' // keywords and bare identifiers
  | 'number'
  | 'punct';

export interface Token {
  kind: TokenKind;
  start: number;
  end: number; // exclusive
  text: string;
}

const WORD_START = /[A-Za-z_\u0080-\ufefe\uff00-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/; // inside a word a U+FEFF is part of it, as in SQLite
const DIGIT = /[0-9]/;

/** Index just past a quoted run that started at `start` with `open` and ends with `close` (doubled close escapes). */
function skipQuoted(sql: string, start: number, close: string, doubledEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === close) {
      if (doubledEscapes && sql[i + 1] === close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length; // unterminated: runs to the end, as SQLite would report
}

export function* tokenize(sql: string): Generator<Token> {
  let i = 0;
  while (i < sql.length) {
    const start = i;
    const c = sql[i];
    let kind: TokenKind;
    // SQLite's tokenizer also takes a byte-order mark (U+FEFF) for a space, wherever it stands.
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\ufeff') {
      while (i < sql.length && /[ \t\n\r\f\v\ufeff]/.test(sql[i])) i++;
      kind = 'space';
    } else if (c === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline === -1 ? sql.length : newline;
      kind = 'comment';
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? sql.length : close + 2;
      kind = 'comment';
    } else if (c === "'") {
      i = skipQuoted(sql, i, "'", true);
      kind = 'string';
    } else if (c === '"' || c === '`') {
      i = skipQuoted(sql, i, c, true);
      kind = 'quoted';
    } else if (c === '[') {
      i = skipQuoted(sql, i, ']', false);
      kind = 'quoted';
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(sql[i + 1] ?? ''))) {
      // Identifier characters right after a number (a U+FEFF too) belong to it, as in SQLite: `1\ufeff` is one bad token.
      while (i < sql.length && /[0-9A-Za-z_.$\u0080-\uffff]/.test(sql[i])) {
        // exponent sign: 1e-5
        if ((sql[i] === 'e' || sql[i] === 'E') && (sql[i + 1] === '-' || sql[i + 1] === '+')) i++;
        i++;
      }
      kind = 'number';
    } else if (WORD_START.test(c)) {
      while (i < sql.length && WORD_PART.test(sql[i])) i++;
      kind = 'word';
    } else {
      i++;
      kind = 'punct';
    }
    yield { kind, start, end: i, text: sql.slice(start, i) };
  }
}

/** Tokens that carry meaning (no spaces, no comments). */
export function significantTokens(sql: string): Token[] {
  const out: Token[] = [];
  for (const token of tokenize(sql)) {
    if (token.kind !== 'space' && token.kind !== 'comment') out.push(token);
  }
  return out;
}

/** The name an identifier token stands for: `"a""b"` → a"b, `` `x` `` → x, `[y]` → y, bare words as they are. */
export function identifierName(text: string): string {
  const open = text[0];
  if (open === '"' || open === '`')
    return text
      .slice(1, -1)
      .split(open + open)
      .join(open);
  if (open === '[') return text.slice(1, -1);
  return text;
}
