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

// Character classes by UTF-16 code unit, tested with comparisons rather than a regular expression per character:
// the lexer runs over every query several times per question, mostly in code V8 has not optimised yet.
const isDigit = (code: number) => code >= 48 && code <= 57;
const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
/** Inside a word: letters, digits, `_`, `$` and every code unit from U+0080 up (a U+FEFF too, as in SQLite). */
const isWordPart = (code: number) => isLetter(code) || isDigit(code) || code === 95 || code === 36 || code >= 0x80;
/** A word starts with a letter, `_` or any code unit from U+0080 up but U+FEFF (a space to SQLite there). */
const isWordStart = (code: number) => isLetter(code) || code === 95 || (code >= 0x80 && code !== 0xfeff);
/** Space, tab, \n, \r, \f, \v, and the byte-order mark U+FEFF, which SQLite's tokenizer takes for a space wherever it stands. */
const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 0xfeff;

/** Index just past a quoted run that started at `start` and ends with `close` (doubled close escapes). */
function skipQuoted(sql: string, start: number, close: number, doubledEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql.charCodeAt(i) === close) {
      if (doubledEscapes && sql.charCodeAt(i + 1) === close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length; // unterminated: runs to the end, as SQLite would report
}

/** Where the token scanToken last read ends (exclusive): read right after each call, before anything else lexes. */
let scanEnd = 0;

/** The kind of the token that starts at `start`; the index just past it is left in scanEnd. */
function scanToken(sql: string, start: number): TokenKind {
  const length = sql.length;
  const c = sql.charCodeAt(start);
  let i = start + 1;
  if (isSpace(c)) {
    while (i < length && isSpace(sql.charCodeAt(i))) i++;
    scanEnd = i;
    return 'space';
  }
  const next = sql.charCodeAt(i); // NaN past the end
  if (c === 45 /* - */ && next === 45) {
    const newline = sql.indexOf('\n', start);
    scanEnd = newline === -1 ? length : newline;
    return 'comment';
  }
  if (c === 47 /* / */ && next === 42 /* * */) {
    const close = sql.indexOf('*/', start + 2);
    scanEnd = close === -1 ? length : close + 2;
    return 'comment';
  }
  if (c === 39 /* ' */) {
    scanEnd = skipQuoted(sql, start, c, true);
    return 'string';
  }
  if (c === 34 /* " */ || c === 96 /* ` */) {
    scanEnd = skipQuoted(sql, start, c, true);
    return 'quoted';
  }
  if (c === 91 /* [ */) {
    scanEnd = skipQuoted(sql, start, 93 /* ] */, false);
    return 'quoted';
  }
  if (isDigit(c) || (c === 46 /* . */ && isDigit(next))) {
    // Identifier characters right after a number (a U+FEFF too) belong to it, as in SQLite: `1\ufeff` is one bad token.
    i = start;
    while (i < length) {
      const code = sql.charCodeAt(i);
      if (!(isWordPart(code) || code === 46)) break;
      // exponent sign: 1e-5
      if ((code === 101 || code === 69) && (sql.charCodeAt(i + 1) === 45 || sql.charCodeAt(i + 1) === 43)) i++;
      i++;
    }
    scanEnd = i;
    return 'number';
  }
  if (isWordStart(c)) {
    while (i < length && isWordPart(sql.charCodeAt(i))) i++;
    scanEnd = i;
    return 'word';
  }
  scanEnd = i;
  return 'punct';
}

export function* tokenize(sql: string): Generator<Token> {
  let i = 0;
  while (i < sql.length) {
    const kind = scanToken(sql, i);
    const end = scanEnd;
    yield { kind, start: i, end, text: sql.slice(i, end) };
    i = end;
  }
}

/**
 * Texts this short keep their tokens for the next pass over the same text: an entry is read by several checks in a
 * row (its first statement, what may run, its parameters, its result's width), and lexing is most of their cost.
 * Longer texts are lexed again by each pass, which then keeps no token: any text is checked in bounded memory.
 */
const CACHED_TEXT_CHARS = 8192;
/** Texts whose tokens are kept: a few, as lanes scoring questions at once interleave their checks. */
const CACHED_TEXTS = 8;
const recentTokens = new Map<string, readonly Token[]>();

/**
 * The tokens of a text, the same as tokenize's, for passes that only read them: kept for the next pass over a
 * short text (the tokens are shared, so callers must not change them), lexed afresh for a long one.
 */
export function tokensOf(sql: string): Iterable<Token> {
  if (sql.length > CACHED_TEXT_CHARS) return tokenize(sql);
  let tokens = recentTokens.get(sql);
  if (!tokens) {
    const list: Token[] = [];
    for (let i = 0; i < sql.length; i = scanEnd) {
      const kind = scanToken(sql, i);
      list.push({ kind, start: i, end: scanEnd, text: sql.slice(i, scanEnd) });
    }
    tokens = list;
    if (recentTokens.size >= CACHED_TEXTS) recentTokens.delete(recentTokens.keys().next().value as string);
    recentTokens.set(sql, tokens);
  }
  return tokens;
}

/** Tokens that carry meaning (no spaces, no comments); from tokensOf's kept tokens, so passes over one text lex it once. */
export function significantTokens(sql: string): Token[] {
  const out: Token[] = [];
  for (const token of tokensOf(sql)) {
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
