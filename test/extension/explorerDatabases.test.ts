// The BIRD explorer's database rows (issue 22): "show flagged questions only" leaves out missing databases and
// those with nothing flagged, and a missing database's tooltip says which file was looked for.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { databaseRows } from '../../src/extension/explorerDatabases';

const ROOT = path.join('/data', 'databases');
// As the language server's dataset summary gives them: each database's file where BIRD's layout puts it.
const DATABASES = [
  { dbId: 'superhero', present: true, questions: 52 },
  { dbId: 'formula_1', present: false, questions: 66 },
  { dbId: 'toxicology', present: true, questions: 1 },
].map((database) => ({ ...database, file: path.join(ROOT, database.dbId, `${database.dbId}.sqlite`) }));

describe('explorer database rows', () => {
  it('lists every database with its count; a missing one says so and where its file was looked for', () => {
    const rows = databaseRows(DATABASES, ROOT);
    assert.deepEqual(
      rows.map((r) => r.description),
      ['52 questions', '66 questions · database missing', '1 question'],
    );
    const missing = rows[1];
    assert.match(missing.tooltip, /formula_1: the database file is missing\. Looked for \/data\/databases\/formula_1\/formula_1\.sqlite/);
    assert.match(missing.tooltip, /its 66 questions cannot be scored, explained or audited/);
    assert.equal(rows[0].tooltip, `superhero: 52 questions\n${path.join(ROOT, 'superhero', 'superhero.sqlite')}`);
  });

  it('flagged only: just the present databases with a flagged question, with the flagged count', () => {
    const flagged = new Map([
      ['superhero', 3],
      ['toxicology', 0],
    ]);
    const rows = databaseRows(DATABASES, ROOT, flagged);
    assert.deepEqual(
      rows.map((r) => [r.dbId, r.description]),
      [['superhero', '3 flagged of 52 questions']],
    );
    assert.deepEqual(databaseRows(DATABASES, ROOT, new Map()), [], 'nothing flagged: no database listed');
  });
});
