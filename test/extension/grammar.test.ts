// The SQL-in-JSON injection grammar (syntaxes/bird-json-sql.injection.json) tokenized as VS Code does it:
// vscode-textmate + vscode-oniguruma with VS Code's own JSON and SQL grammars (from the code-server install,
// VS Code 1.100). Every shared BIRD question and prediction file must tokenize with no invalid scope, and the
// SQL inside the strings must get SQL scopes while the JSON around it keeps its own.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import { BIRD_DATA, birdDataMissing, REPO_ROOT } from '../helpers';
import { editorMissing } from '../e2e/codeServer';

const VSCODE_EXTENSIONS = path.join(REPO_ROOT, '.vscode-test', 'code-server', 'node_modules', 'code-server', 'lib', 'vscode', 'extensions');
const GRAMMARS: Record<string, string> = {
  'source.json': path.join(VSCODE_EXTENSIONS, 'json', 'syntaxes', 'JSON.tmLanguage.json'),
  'source.sql': path.join(VSCODE_EXTENSIONS, 'sql', 'syntaxes', 'sql.tmLanguage.json'),
  'bird-json-sql.injection': path.join(REPO_ROOT, 'syntaxes', 'bird-json-sql.injection.json'),
};

/** The shared question and prediction files, plus the embedded sample. */
function sharedFiles(): string[] {
  const files = [path.join(REPO_ROOT, 'sample', 'mini_dev_superhero.json'), path.join(REPO_ROOT, 'sample', 'predict_gpt-4_superhero.json')];
  for (const folder of ['questions', path.join('predictions', 'minidev-official')]) {
    const dir = path.join(BIRD_DATA, folder);
    if (fs.existsSync(dir))
      files.push(
        ...fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .map((f) => path.join(dir, f)),
      );
  }
  return files;
}

interface Token {
  text: string;
  scopes: string[];
}

const skip = editorMissing() || birdDataMissing();

describe("SQL-in-JSON injection grammar, tokenized with VS Code's JSON grammar", { skip }, () => {
  let registry: textmate.Registry;
  let grammar: textmate.IGrammar;

  before(async () => {
    const wasm = fs.readFileSync(path.join(REPO_ROOT, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
        createOnigString: (text) => new oniguruma.OnigString(text),
      }),
      loadGrammar: async (scopeName) => {
        const file = GRAMMARS[scopeName];
        return file ? textmate.parseRawGrammar(fs.readFileSync(file, 'utf8'), file) : null;
      },
      // As package.json contributes it: injected into source.json.
      getInjections: (scopeName) => (scopeName === 'source.json' ? ['bird-json-sql.injection'] : undefined),
    });
    grammar = (await registry.loadGrammar('source.json'))!;
    assert.ok(grammar);
  });

  function tokenize(text: string): Token[][] {
    let state = textmate.INITIAL;
    return text.split(/\r?\n/).map((line) => {
      const result = grammar.tokenizeLine(line, state);
      state = result.ruleStack;
      return result.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
    });
  }

  it('finds the grammars', () => {
    for (const file of Object.values(GRAMMARS)) assert.ok(fs.existsSync(file), file);
  });

  for (const file of sharedFiles()) {
    it(`tokenizes ${path.basename(path.dirname(file))}/${path.basename(file)} with no invalid scope and SQL inside its strings`, () => {
      const lines = tokenize(fs.readFileSync(file, 'utf8'));
      const invalid = lines.flatMap((tokens, line) =>
        tokens
          .filter((t) => t.scopes.some((s) => s.startsWith('invalid')))
          .map((t) => `line ${line + 1}: ${JSON.stringify(t.text)} ${t.scopes.join(' ')}`),
      );
      assert.deepEqual(invalid.slice(0, 5), [], `${invalid.length} invalid tokens`);
      const tokens = lines.flat();
      const sqlKeywords = tokens.filter(
        (t) => /^select$/i.test(t.text) && t.scopes.includes('meta.embedded.inline.sql') && t.scopes.some((s) => s.startsWith('keyword')),
      );
      assert.ok(sqlKeywords.length > 10, `SELECT is scoped as an SQL keyword inside the JSON strings (${sqlKeywords.length} times)`);
      // Every JSON key and value string still closes: the last line ends outside any string.
      const last = tokens.filter((t) => t.text.trim()).at(-1)!;
      assert.deepEqual(
        last.scopes.filter((s) => s.startsWith('string') || s.startsWith('meta.embedded')),
        [],
        `the file ends outside any string: ${JSON.stringify(last)}`,
      );
    });
  }

  it('ends the SQL at the closing quote even when the SQL inside is broken (an open quote, comment, or escaped quotes)', () => {
    const text = [
      '{',
      '  "0": "SELECT \'unclosed FROM t -- trailing \\"comment\\"\\t----- bird -----\\tdb",',
      '  "1": "SELECT \\"name\\" FROM t WHERE a = \'x\\\\\'",',
      '  "2": "WITH x AS (SELECT 1) SELECT * FROM x /* open",',
      '  "3": "not sql at all"',
      '}',
    ].join('\n');
    const lines = tokenize(text);
    for (const [line, tokens] of lines.entries()) {
      assert.deepEqual(
        tokens.filter((t) => t.scopes.some((s) => s.startsWith('invalid'))),
        [],
        `line ${line + 1}`,
      );
    }
    // Each key on the next line is still a JSON property name.
    for (const line of [2, 3, 4]) {
      const key = lines[line].find((t) => t.text === String(line - 1));
      assert.ok(key?.scopes.includes('support.type.property-name.json'), `line ${line + 1}: ${JSON.stringify(lines[line])}`);
    }
    const identifier = lines[2].find((t) => t.text === '\\"name\\"');
    assert.ok(identifier?.scopes.includes('string.quoted.double.sql'), JSON.stringify(lines[2]));
    const literal = lines[2].find((t) => t.text.startsWith("'x"));
    assert.ok(literal?.scopes.includes('string.quoted.single.sql'), JSON.stringify(lines[2]));
    const notSql = lines[4].find((t) => t.text.includes('not sql'));
    assert.ok(notSql && !notSql.scopes.includes('meta.embedded.inline.sql'));
  });
});
