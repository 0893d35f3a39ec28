// An applied rewrite keeps the statement's layout (src/app/sqlLayout.ts): a statement over several lines
// is laid out again as sql-formatter writes it, at the statement's indentation; nothing outside it moves.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { formattedRewriteEdit, TextEdit } from '../../src/app/sqlLayout';
import { VesLensService } from '../../src/server/service';
import { REPO_ROOT } from '../helpers';

const applied = (text: string, edit: TextEdit) => text.slice(0, edit.start) + edit.text + text.slice(edit.end);

/** The document, the statement's span (up to its `;`) and the edit replacing `piece` with `replacement`. */
function rewriteOf(text: string, piece: string, replacement: string) {
  const statement = { start: text.indexOf('SELECT'), end: text.indexOf(';') };
  const start = text.indexOf(piece);
  return { statement, rewrite: { start, end: start + piece.length, text: replacement } };
}

describe('formattedRewriteEdit', () => {
  const INDENTED = [
    '-- bird: 717',
    '  SELECT',
    '    T1.superhero_name',
    '  FROM',
    '    superhero AS T1',
    '  WHERE',
    "    T1.superhero_name LIKE 'Batman'",
    '    AND T1.id > 0;',
    'SELECT 2;',
    '',
  ].join('\n');

  it('lays a statement over several lines out again, at its indentation, replacing only what differs', () => {
    const { statement, rewrite } = rewriteOf(
      INDENTED,
      "T1.superhero_name LIKE 'Batman'",
      "T1.superhero_name = 'Batman' OR T1.superhero_name IN (SELECT 'Robin')",
    );
    const edit = formattedRewriteEdit(INDENTED, statement, rewrite);
    assert.equal(
      applied(INDENTED, edit),
      [
        '-- bird: 717',
        '  SELECT',
        '    T1.superhero_name',
        '  FROM',
        '    superhero AS T1',
        '  WHERE',
        "    T1.superhero_name = 'Batman'",
        '    OR T1.superhero_name IN (',
        '      SELECT',
        "        'Robin'",
        '    )',
        '    AND T1.id > 0;',
        'SELECT 2;',
        '',
      ].join('\n'),
    );
    assert.ok(edit.start >= rewrite.start, 'the statement before the rewrite is not touched');
  });

  it('splices into a statement on one line: it stays on one line', () => {
    const text = "SELECT id FROM superhero WHERE superhero_name LIKE 'Batman';\n";
    const { statement, rewrite } = rewriteOf(text, "LIKE 'Batman'", "= 'Batman'");
    assert.deepEqual(formattedRewriteEdit(text, statement, rewrite), rewrite);
  });

  it('splices when laying out would touch more than whitespace (a literal over two lines) or cannot read the SQL', () => {
    const literal = "SELECT\n  id\nFROM\n  superhero\nWHERE\n  superhero_name LIKE 'Bat\nman';\n";
    const one = rewriteOf(literal, 'LIKE', '=');
    assert.deepEqual(formattedRewriteEdit(literal, one.statement, one.rewrite), one.rewrite);
    const unreadable = 'SELECT\n  id\nFROM\n  superhero\nWHERE\n  id = 1;\n';
    const two = rewriteOf(unreadable, 'id = 1', 'id = (((');
    assert.deepEqual(formattedRewriteEdit(unreadable, two.statement, two.rewrite), two.rewrite);
  });
});

describe('a verified rewrite applied to a .sql document (the language server)', () => {
  const SAMPLE = path.join(REPO_ROOT, 'sample');
  const dataset = {
    questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
    goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
    dbRoot: SAMPLE,
  };
  const documents = new Map<string, TextDocument>();
  const service = new VesLensService({
    documents: { get: (uri: string) => documents.get(uri), all: () => [...documents.values()] },
    log: () => {},
    docsRoot: path.join(REPO_ROOT, 'docs', 'rules'),
  });
  before(() => service.initialize({ dataset, trusted: true }));
  after(() => service.dispose());

  it('returns the edit that leaves the statement laid out like the rest, the text around it untouched', async () => {
    const text = [
      '-- bird: 717',
      'SELECT',
      '  T1.superhero_name',
      'FROM',
      '  superhero AS T1',
      'WHERE',
      '  EXISTS (',
      '    SELECT',
      '      1',
      '    FROM',
      '      hero_power AS T2',
      '    WHERE',
      '      T2.hero_id = T1.id',
      '      AND T2.power_id = 18',
      '  );',
      '',
      'SELECT 1;',
      '',
    ].join('\n');
    const uri = 'file:///ws/layout.sql';
    documents.set(uri, TextDocument.create(uri, 'sql', 1, text));
    const statementStart = text.indexOf('SELECT');
    const verdict = await service.verifyHint({ uri, statementStart, rule: 'VL001', hintStart: text.indexOf('EXISTS') });
    assert.ok(verdict.edit, verdict.message);
    const after = applied(text, verdict.edit);
    // VL001: the EXISTS becomes a join on the distinct keys, laid out as the statement was.
    assert.equal(
      after,
      [
        '-- bird: 717',
        'SELECT',
        '  T1.superhero_name',
        'FROM',
        '  superhero AS T1',
        '  INNER JOIN (',
        '    SELECT DISTINCT',
        '      T2.hero_id AS vl_key',
        '    FROM',
        '      hero_power AS T2',
        '    WHERE',
        '      T2.power_id = 18',
        '  ) AS vl_semi1 ON vl_semi1.vl_key = T1.id;',
        '',
        'SELECT 1;',
        '',
      ].join('\n'),
    );
  });
});
