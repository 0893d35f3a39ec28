import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseTree, visit } from 'jsonc-parser';
import { duplicateJsonKeys, duplicateKeyProblems, outlineJson } from '../../src/core/bird/jsonFile';
import { loadPredictions } from '../../src/core/bird/predictions';
import { BIRD_DATA, birdDataMissing, tempDir } from '../helpers';

/** jsonc-parser's reading, the slow one outlineJson replaces: entry offsets from its tree, keys from its walk. */
function oracle(text: string): { entryOffsets: number[]; keyCount: number } {
  let keyCount = 0;
  visit(text, { onObjectProperty: () => void keyCount++ });
  return { entryOffsets: (parseTree(text)?.children ?? []).map((entry) => entry.offset), keyCount };
}

/** Texts whose strings hold what a naive scan would take for structure: quotes, backslashes, brackets, colons. */
const TRICKY = [
  '[]',
  '{}',
  '  [ ]  ',
  '"just a string"',
  '42',
  '[1, -2.5e3, true, false, null, "x"]',
  '{"a": 1, "b": [1, {"c": 2}], "d": {}}',
  '[{"q": "SELECT \\"x\\" FROM t WHERE y = \'[{,:}]\'"}, {"q": "a\\\\"}, {"q": "\\\\\\""}]',
  '{"k\\"ey": "v", "with:colon": "{", "esc\\\\": "]"}',
  '\r\n[\r\n\t"a",\r\n\t[\r\n\t\t"b"\r\n\t],\r\n\t{}\r\n]\r\n',
  '{"é": "ünï", "🙂": "\\ud83d\\ude42", "0": "", "": 0}',
  '[[[]], [[1]], {"a": [{"b": {"c": []}}]}]',
];

describe('the JSON outline (one pass instead of jsonc-parser)', () => {
  it('finds the same top-level entries and keys as jsonc-parser on texts built to confuse a scan', () => {
    for (const text of TRICKY) {
      JSON.parse(text); // each case is valid JSON, as outlineJson requires
      const outline = outlineJson(text);
      assert.deepEqual({ entryOffsets: outline.entryOffsets, keyCount: outline.keyCount }, oracle(text), text);
      const lines = outline.entryOffsets.map((offset) => text.slice(0, offset).split('\n').length);
      assert.deepEqual(outline.entryLines, lines, text);
    }
  });

  it('finds the same on every BIRD question and prediction file of the shared data', { skip: birdDataMissing() }, () => {
    const files = [
      ...fs.readdirSync(path.join(BIRD_DATA, 'questions')).map((f) => path.join(BIRD_DATA, 'questions', f)),
      ...fs
        .readdirSync(path.join(BIRD_DATA, 'predictions', 'minidev-official'))
        .map((f) => path.join(BIRD_DATA, 'predictions', 'minidev-official', f)),
    ].filter((file) => file.endsWith('.json'));
    assert.ok(files.length >= 6, 'the shared question and prediction files are there');
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const outline = outlineJson(text);
      assert.deepEqual({ entryOffsets: outline.entryOffsets, keyCount: outline.keyCount }, oracle(text), file);
      assert.ok(outline.entryOffsets.length > 0, file);
    }
  });

  it('tells a repeated key from its count alone, and still words it with its line', () => {
    const repeated = '[\n{"a": 1, "b": 2},\n{"a": 1, "b": 2, "a": 3}\n]';
    const unique = '[\n{"a": 1, "b": 2},\n{"a": 1, "b": 2, "c": 3}\n]';
    const nested = '{"0": {"x": {"y": 1, "y": 2}}}';
    for (const [text, repeats] of [
      [repeated, true],
      [unique, false],
      [nested, true],
    ] as const) {
      const problems = duplicateKeyProblems('f.json', text, { outline: outlineJson(text), data: JSON.parse(text) });
      assert.equal(problems.length, duplicateJsonKeys(text).length, text);
      assert.equal(problems.length > 0, repeats, text);
    }
    const [problem] = duplicateKeyProblems('f.json', repeated, { outline: outlineJson(repeated), data: JSON.parse(repeated) });
    assert.equal(problem.where, 'line 3');
    assert.match(problem.message, /key "a" appears again in item 1/);
  });

  it('reads an official prediction object with escaped and out-of-order keys in file order, last value kept', () => {
    const text = '{\n"1": "SELECT 1",\n"a\\"b": "SELECT 2",\n"0": "SELECT 3",\n"x\\u0030": "SELECT 4",\n"1": "SELECT 5"\n}';
    const file = path.join(tempDir(), 'odd-keys.json');
    fs.writeFileSync(file, text);
    const read = loadPredictions(file);
    assert.deepEqual(
      read.predictions.map((p) => [p.where, p.sql]),
      [
        ['key "1"', 'SELECT 5'],
        ['key "a\\"b"', 'SELECT 2'],
        ['key "0"', 'SELECT 3'],
        ['key "x0"', 'SELECT 4'],
      ],
    );
    assert.ok(read.problems.some((p) => /key "1" appears again/.test(p.message)));
  });
});
