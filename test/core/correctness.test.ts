// audit --correctness, one check at a time, on the real superhero database (the repository's sample, the BIRD
// file): each kind is found where the data shows it and not in the same gold written safely (a key without
// NULLs, a number sorted as a number, real division, a unique ORDER BY key, a grouped column).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { checkCorrectness, CorrectnessOptions, REVERSED_CHECK } from '../../src/core/audit/correctness/checkCorrectness';
import { CorrectnessFinding, CorrectnessKind } from '../../src/core/audit/correctness/kinds';
import { PredictionAgreement } from '../../src/core/audit/correctness/predictionsDisagree';
import { Question } from '../../src/core/bird/questions';
import { DatabaseConnection } from '../../src/core/db/engine';
import { readQuery } from '../../src/core/db/readQuery';
import { useSampleSuperhero } from '../helpers';

const LIMITS = { timeoutMs: 30_000, maxRows: 100_000 };

function question(text: string, evidence = ''): Question {
  return { index: 0, questionId: 0, dbId: 'superhero', question: text, evidence, difficulty: 'simple' };
}

describe('audit --correctness checks on the superhero database', () => {
  let db: DatabaseConnection;
  useSampleSuperhero((opened) => (db = opened.db));

  async function findings(text: string, gold: string, options: Partial<CorrectnessOptions> = {}, on = db): Promise<CorrectnessFinding[]> {
    const run = await readQuery(on, gold, { deadline: performance.now() + LIMITS.timeoutMs, maxRows: LIMITS.maxRows });
    assert.equal(run.status, 'ok', `the gold runs: ${gold}`);
    return checkCorrectness(on, question(text), gold, run, { ...LIMITS, ...options });
  }
  const kinds = (found: CorrectnessFinding[]) => found.map((f) => f.kind);
  const only = (found: CorrectnessFinding[], kind: CorrectnessKind) => found.find((f) => f.kind === kind);

  it('a NULL key ranked first where the question asks for the lowest, not once NULLs are filtered out', async () => {
    const gold = 'SELECT superhero_name FROM superhero ORDER BY height_cm LIMIT 1';
    const found = await findings('Who is the shortest superhero?', gold);
    const nulls = only(found, 'nulls_first_in_ranking');
    assert.ok(nulls, JSON.stringify(found));
    assert.match(nulls.detail, /shortest/);
    assert.equal(nulls.evidence.boundary?.tied_rows, 58, 'the 58 heroes without a height');
    const filtered = 'SELECT superhero_name FROM superhero WHERE height_cm IS NOT NULL ORDER BY height_cm LIMIT 1';
    assert.ok(!kinds(await findings('Who is the shortest superhero?', filtered)).includes('nulls_first_in_ranking'));
    assert.ok(!kinds(await findings('Name one superhero.', gold)).includes('nulls_first_in_ranking'), 'no ranking asked');
  });

  it('numbers stored as text ranked as text, not when ranked as numbers', async () => {
    const asText = 'SELECT superhero_name FROM superhero WHERE height_cm > 0 ORDER BY CAST(height_cm AS TEXT) DESC LIMIT 1';
    const found = only(await findings('Who is the tallest superhero?', asText), 'numeric_text_order_key');
    assert.ok(found);
    // As text '975' ranks above '30480'; as numbers Surtur and Ymir (30480 cm) come first.
    assert.deepEqual(found.evidence.rows_of_check, [['Surtur']]);
    const asNumber = 'SELECT superhero_name FROM superhero WHERE height_cm > 0 ORDER BY height_cm DESC LIMIT 1';
    assert.ok(!kinds(await findings('Who is the tallest superhero?', asNumber)).includes('numeric_text_order_key'));
  });

  it('a tie across the LIMIT: the two 30480 cm heroes, not with a unique key', async () => {
    const found = only(
      await findings('Who is the tallest?', 'SELECT superhero_name FROM superhero ORDER BY height_cm DESC LIMIT 1'),
      'limit_through_tie',
    );
    assert.ok(found);
    assert.deepEqual(found.evidence.boundary, { key: [30480], tied_rows: 2, kept: 1 });
    const unique = await findings('Who has the largest id?', 'SELECT superhero_name FROM superhero ORDER BY id DESC LIMIT 1');
    assert.deepEqual(kinds(unique), []);
  });

  it('LIMIT without ORDER BY, unless every row it could pick is the same', async () => {
    const found = only(await findings('List three heroes.', 'SELECT superhero_name FROM superhero LIMIT 3'), 'limit_without_order_by');
    assert.ok(found);
    assert.equal(found.evidence.row_counts?.as_written, 3);
    // The reversed scan returns three other heroes: the finding carries that evidence too.
    assert.equal(found.evidence.reversed_scan?.check, REVERSED_CHECK);
    assert.deepEqual(kinds(await findings('Is there a hero?', "SELECT 'yes' FROM superhero LIMIT 3")), []);
  });

  it('a bare column beside an aggregate, not a grouped one', async () => {
    const found = only(
      await findings('Total height and publisher?', 'SELECT SUM(height_cm), publisher_id FROM superhero'),
      'bare_column_with_aggregate',
    );
    assert.ok(found);
    assert.ok(Number(found.evidence.rows_of_check?.[0][0]) > 1);
    const grouped = await findings('Heroes per publisher?', 'SELECT COUNT(*), publisher_id FROM superhero GROUP BY publisher_id');
    assert.ok(!kinds(grouped).includes('bare_column_with_aggregate'));
  });

  it('integer division where a percentage is asked, not with real division', async () => {
    const asked = 'What percentage of superheroes have a recorded height?';
    const found = only(await findings(asked, 'SELECT COUNT(height_cm) * 100 / COUNT(*) FROM superhero'), 'integer_division_ratio');
    assert.ok(found);
    assert.deepEqual(found.evidence.rows_as_written, [[92]]);
    assert.ok(Math.abs(Number(found.evidence.rows_of_check?.[0][0]) - 92.2667) < 1e-3);
    const real = await findings(asked, 'SELECT CAST(COUNT(height_cm) AS REAL) * 100 / COUNT(*) FROM superhero');
    assert.deepEqual(kinds(real), []);
  });

  it('the clock and random(), and a gold that returns no rows', async () => {
    const clock = only(
      await findings('How many?', "SELECT COUNT(*) FROM superhero WHERE date('now') > '2000-01-01'"),
      'nondeterministic_function',
    );
    assert.deepEqual(clock?.evidence.calls, ["'now'"]);
    const random = only(
      await findings('Any hero?', 'SELECT superhero_name FROM superhero ORDER BY RANDOM() LIMIT 1'),
      'nondeterministic_function',
    );
    assert.deepEqual(random?.evidence.calls, ['RANDOM()']);
    assert.deepEqual(kinds(await findings('Which hero has id -1?', 'SELECT superhero_name FROM superhero WHERE id < 0')), ['no_rows']);
  });

  it('without reversed scans (an engine that has none) the other checks still run', async () => {
    const noReversal = Object.create(db, { setUnorderedScans: { value: undefined } }) as DatabaseConnection;
    const found = await findings('List three heroes.', 'SELECT superhero_name FROM superhero LIMIT 3', {}, noReversal);
    assert.deepEqual(kinds(found), ['limit_without_order_by']);
    assert.equal(found[0].evidence.reversed_scan, undefined);
    // And the connection scans forward again after a reversed run: the same gold gives the same rows twice.
    const first = await readQuery(db, 'SELECT superhero_name FROM superhero LIMIT 3', { maxRows: 10 });
    await findings('List three heroes.', 'SELECT superhero_name FROM superhero LIMIT 3');
    assert.deepEqual(await readQuery(db, 'SELECT superhero_name FROM superhero LIMIT 3', { maxRows: 10 }), first);
  });

  it('prediction files that agree with each other against the gold, not a lone or differently shaped one', async () => {
    const gold = "SELECT COUNT(*) FROM superhero WHERE superhero_name LIKE 'A%'";
    const file = (name: string, hit: { correct: boolean; outcome: string; sql?: string }): PredictionAgreement => ({
      file: `/predictions/${name}.json`,
      byIndex: new Map([[0, { ...hit, ratio: null, low: null, high: null }]]),
    });
    const other = "SELECT COUNT(*) FROM superhero WHERE superhero_name LIKE 'B%'";
    const agreeing = [
      file('a', { correct: false, outcome: 'mismatch', sql: other }),
      file('b', { correct: false, outcome: 'mismatch', sql: `${other} AND id > 0` }),
      file('c', { correct: true, outcome: 'correct', sql: gold }),
    ];
    const found = only(await findings('How many heroes start with A?', gold, { predictions: agreeing }), 'predictions_disagree');
    assert.ok(found);
    assert.deepEqual(found.evidence.files, ['/predictions/a.json', '/predictions/b.json']);
    assert.equal(found.evidence.of_files, 3);
    const shapes = [
      agreeing[0],
      file('b', { correct: false, outcome: 'mismatch', sql: `${other.replace('COUNT(*)', 'COUNT(*), 1')}` }),
      agreeing[2],
    ];
    assert.ok(!kinds(await findings('How many heroes start with A?', gold, { predictions: shapes })).includes('predictions_disagree'));
  });
});
