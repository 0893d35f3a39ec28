import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DatabaseConnection } from '../../src/core/db/engine';
import { SchemaInfo } from '../../src/core/db/schema';
import { adviseIndexes, IndexCandidate, proposeIndexes } from '../../src/core/plan/indexAdvice';
import { useSampleSuperhero } from '../helpers';

let db: DatabaseConnection;
let schema: SchemaInfo;

/** What index advice proposes, as comparable text (table, columns, reason). */
function proposed(sql: string): string[] {
  const proposals = proposeIndexes(sql, schema);
  assert.ok(Array.isArray(proposals), `no proposals for ${sql}: ${(proposals as { error: string }).error}`);
  return (proposals as IndexCandidate[]).map((p) => `${p.table}(${p.columns.join(',')}) ${p.reason}`);
}

/** The same query with its identifiers bare, double-quoted, backticked and bracketed: SQLite reads all four alike. */
const QUOTINGS: Record<string, (name: string) => string> = {
  bare: (name) => name,
  'double quotes': (name) => `"${name}"`,
  backticks: (name) => `\`${name}\``,
  brackets: (name) => `[${name}]`,
};

describe('index advice reads quoted identifiers as SQLite does (the real superhero database)', () => {
  useSampleSuperhero((opened) => ({ db, schema } = opened));

  it('proposes the same indexes for a column however it is quoted', () => {
    for (const [quoting, q] of Object.entries(QUOTINGS)) {
      assert.deepEqual(
        proposed(`SELECT superhero_name FROM superhero WHERE ${q('height_cm')} = 180`),
        ['superhero(height_cm) WHERE equality'],
        quoting,
      );
      assert.deepEqual(
        proposed(
          `SELECT T1.superhero_name FROM ${q('superhero')} AS ${q('T1')} WHERE ${q('T1')}.${q('weight_kg')} > 100 ORDER BY ${q('T1')}.${q('height_cm')}`,
        ),
        ['superhero(weight_kg) WHERE range', 'superhero(height_cm) ORDER BY / GROUP BY'],
        quoting,
      );
    }
  });

  it('reads a double-quoted name that is no column in scope as the string SQLite makes of it', () => {
    // "Batman" is no column: a string, so full_name = "Batman" is an equality on full_name, not a join.
    assert.deepEqual(proposed('SELECT id FROM superhero WHERE full_name = "Batman"'), ['superhero(full_name) WHERE equality']);
    // "height_cm" is a column: full_name = "height_cm" compares two columns.
    assert.deepEqual(proposed('SELECT id FROM superhero WHERE full_name = "height_cm"'), [
      'superhero(full_name) JOIN condition',
      'superhero(height_cm) JOIN condition',
    ]);
  });

  it('checks the quoted column with the planner instead of calling it indexed already', async () => {
    for (const [quoting, q] of Object.entries(QUOTINGS)) {
      const advice = await adviseIndexes(db, `SELECT superhero_name FROM superhero WHERE ${q('height_cm')} = 180`, schema);
      assert.equal(advice.error, undefined, quoting);
      assert.deepEqual(
        advice.verdicts.map((v) => [v.candidate.columns.join(','), v.used, v.recommended]),
        [['height_cm', true, true]],
        quoting,
      );
    }
  });
});
