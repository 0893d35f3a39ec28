import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Token, TokenKind, tokenize, tokensOf } from '../../src/core/sql/lexer';
import { firstStatement, pythonWouldRejectTail, splitStatements } from '../../src/core/sql/statements';
import { BIRD_DATA } from '../helpers';

/**
 * The lexer as first written, one regular expression per character: the oracle for the lexer that compares
 * character codes instead (issue 21), which must cut every text into the same tokens.
 */
function referenceTokens(sql: string): Token[] {
  const out: Token[] = [];
  const quoted = (start: number, close: string, doubled: boolean) => {
    let i = start + 1;
    while (i < sql.length) {
      if (sql[i] === close) {
        if (doubled && sql[i + 1] === close) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return sql.length;
  };
  let i = 0;
  while (i < sql.length) {
    const start = i;
    const c = sql[i];
    let kind: TokenKind;
    if (/[ \t\n\r\f\v\ufeff]/.test(c)) {
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
      i = quoted(i, "'", true);
      kind = 'string';
    } else if (c === '"' || c === '`') {
      i = quoted(i, c, true);
      kind = 'quoted';
    } else if (c === '[') {
      i = quoted(i, ']', false);
      kind = 'quoted';
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < sql.length && /[0-9A-Za-z_.$\u0080-\uffff]/.test(sql[i])) {
        if ((sql[i] === 'e' || sql[i] === 'E') && (sql[i + 1] === '-' || sql[i + 1] === '+')) i++;
        i++;
      }
      kind = 'number';
    } else if (/[A-Za-z_\u0080-\ufefe\uff00-\uffff]/.test(c)) {
      while (i < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[i])) i++;
      kind = 'word';
    } else {
      i++;
      kind = 'punct';
    }
    out.push({ kind, start, end: i, text: sql.slice(start, i) });
  }
  return out;
}

/** A deterministic stream of texts made of SQL's pieces: quotes, comments, numbers, odd spaces, surrogates. */
function* generatedTexts(count: number): Generator<string> {
  const pieces = ['SELECT', ' ', ';', '--c\n', '--c', '/*x*/', '/*', "'a;b'", "'", '"q""r"', '`t`', '[x;]', '[', '?1', ':a', '$c::d(e)'];
  pieces.push(
    '1e-5',
    '.5',
    '1.2.3',
    '0x1F',
    'é',
    '\ud83d\ude00',
    '\ufeff',
    '\ufefe',
    '\u00a0',
    '\f',
    '\v',
    '\r\n',
    '\t',
    '(',
    ')',
    ',',
    '*',
    'x1$',
  );
  let seed = 21;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let k = 0; k < count; k++) {
    let text = '';
    const length = Math.floor(next() * 16);
    for (let j = 0; j < length; j++) text += pieces[Math.floor(next() * pieces.length)];
    yield text;
  }
}

const birdTexts = (): string[] => {
  const questions = path.join(BIRD_DATA, 'questions');
  const lines = ['mini_dev_sqlite_gold.v1-2024.sql', 'dev_gold.damo-2023.sql'].flatMap((file) =>
    fs.readFileSync(path.join(questions, file), 'utf8').split('\n'),
  );
  const predictions = path.join(BIRD_DATA, 'predictions', 'minidev-official');
  for (const file of fs.readdirSync(predictions).filter((name) => name.endsWith('.json')))
    lines.push(...Object.values(JSON.parse(fs.readFileSync(path.join(predictions, file), 'utf8')) as Record<string, string>));
  return lines;
};

describe('the lexer (issue 21: compared character codes, one lexing per text)', () => {
  it('cuts every UTF-16 code unit, alone and between letters or digits, as the regular-expression lexer did', () => {
    for (let code = 0; code < 0x10000; code++) {
      const c = String.fromCharCode(code);
      for (const text of [c, `a${c}b`, `1${c}2`, `${c}x`, `.${c}`, `1e${c}5`])
        assert.deepEqual([...tokenize(text)], referenceTokens(text), text);
    }
  });

  it("cuts BIRD's gold and predictions and generated texts as the regular-expression lexer did", () => {
    const texts = [...birdTexts(), ...generatedTexts(20_000)];
    assert.ok(texts.length > 20_000);
    for (const text of texts) assert.deepEqual([...tokenize(text)], referenceTokens(text), text);
  });

  it('tokensOf gives the same tokens as tokenize, kept for a short text and lexed afresh for a long one', () => {
    const short = "SELECT name FROM t WHERE x = 'a;b' -- c\n; DROP TABLE t";
    assert.deepEqual([...tokensOf(short)], [...tokenize(short)]);
    assert.equal(tokensOf(short), tokensOf(short), 'the second pass over the same text reuses its tokens');
    const long = `SELECT ${'1, '.repeat(20_000)}1`;
    const tokens = tokensOf(long);
    assert.ok(!Array.isArray(tokens), 'a long text keeps no token array');
    assert.deepEqual([...tokens], [...tokenize(long)]);
  });
});

describe('firstStatement in one pass', () => {
  it("is splitStatements' first span, with Python's rule on what follows its semicolon", () => {
    const reference = (sql: string) => {
      const spans = splitStatements(sql);
      if (spans.length === 0) return { body: '', hasMoreStatements: false };
      const first = spans[0];
      let tailStart = first.end;
      for (const token of tokenize(sql.slice(first.end))) {
        if (token.kind === 'punct' && token.text === ';') {
          tailStart = first.end + token.end;
          break;
        }
        if (token.kind !== 'space' && token.kind !== 'comment') break;
      }
      return { body: first.text, hasMoreStatements: pythonWouldRejectTail(sql.slice(tailStart)) };
    };
    for (const text of [...birdTexts(), ...generatedTexts(20_000)]) assert.deepEqual(firstStatement(text), reference(text), text);
  });
});
