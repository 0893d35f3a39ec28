import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { DatabaseConnection } from '../../src/core/db/engine';
import { SchemaInfo } from '../../src/core/db/schema';
import { DatabaseFacts, describeDatabase, tablesNamed } from '../../src/core/judge/dbInfo';
import { searchCounterexample } from '../../src/core/results/counterexample/search';
import { SQL_ANALYSIS_BOUNDS } from '../../src/core/sql/textBounds';
import { scoreExplanations } from '../../src/app/scoreExplanations';
import { hoverText } from '../../src/app/statementHover';
import { formatSql, layoutSql } from '../../src/app/sqlLayout';
import { runCli, SAMPLE_SUPERHERO, tempDir, useSampleSuperhero } from '../helpers';

/**
 * The predictions: 31 MB of `SELECT 1,1,1,…` (past the characters analysed) and a text within the
 * characters but past the tokens (`… IN (1,1,…)`, 120 thousand numbers). Each analysis that would tokenize or
 * parse the whole text steps aside and says so; texts within the bounds are analysed as before.
 */
const HUGE = 'SELECT 1' + ',1'.repeat(15_500_000);
const MANY_TOKENS = `SELECT superhero_name FROM superhero WHERE id IN (${Array(120_000).fill('1').join(',')})`;
// Past the characters too, but small enough for hover's own split of the document into statements (31 MB takes seconds).
const PAST_CHARS = 'SELECT 1' + ',1'.repeat(600_000);
const SMALL = "SELECT superhero_name FROM superhero WHERE eye_colour_id = 1 AND full_name = 'Stealth'";
const ONE_GIB = 2 ** 30;

describe('analyses of SQL text past the bounds step aside with a note (issue 20)', () => {
  let db: DatabaseConnection;
  let schema: SchemaInfo;
  useSampleSuperhero((opened) => ({ db, schema } = opened));
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('the test texts are where they should be: one past the characters, one within them but past the tokens', () => {
    assert.ok(HUGE.length > 31_000_000 && HUGE.length > SQL_ANALYSIS_BOUNDS.tokens.chars);
    assert.ok(MANY_TOKENS.length < SQL_ANALYSIS_BOUNDS.tokens.chars);
  });

  it('hover: the note in place of table and column facts, per statement (the next statement is still analysed)', () => {
    for (const [big, reason] of [
      [PAST_CHARS, /it has 1,200,008 characters, past the 1,048,576 analysed/],
      [MANY_TOKENS, /it has more than 100,000 tokens, the most analysed/],
    ] as const) {
      const document = `${big};\n${SMALL};`;
      const note = hoverText(document, big.indexOf('1'), schema);
      assert.match(note ?? '', /^table and column information: not analysed, the SQL is too large \(/);
      assert.match(note ?? '', reason);
      const small = hoverText(document, document.lastIndexOf('eye_colour_id') + 2, schema);
      assert.match(small ?? '', /\*\*superhero\.eye_colour_id\*\*/, 'a statement within the bounds still gets its hover');
    }
    assert.ok(process.memoryUsage().rss < ONE_GIB, `rss ${process.memoryUsage().rss}`);
  });

  it("the Score panel's explanations: the literal checks say they stepped aside; within the bounds they still find the literal", () => {
    const preview = (rows: unknown[][]) => ({ columns: ['name'], rows, rowCount: rows.length, truncated: false });
    const gold = preview([['Stealth']]);
    const pred = preview([['stealth']]);
    const mismatch = { outcome: 'mismatch' as const, ex: 0 as const, f1: 0 };
    for (const big of [HUGE, MANY_TOKENS]) {
      const asPrediction = scoreExplanations(mismatch, gold, pred, { pred: `${big} UNION SELECT 'stealth'`, gold: SMALL });
      assert.ok(asPrediction.some((line) => /^the prediction's string literals: not analysed, the SQL is too large/.test(line)));
      assert.ok(!asPrediction.some((line) => /case or surrounding spaces/.test(line)));
      const asGold = scoreExplanations(mismatch, gold, pred, { pred: "SELECT 'stealth'", gold: big });
      assert.ok(asGold.some((line) => /^gold's string literals: not analysed/.test(line)));
    }
    const within = scoreExplanations(mismatch, gold, pred, { pred: "SELECT 'stealth'", gold: SMALL });
    assert.ok(within.some((line) => /literal 'stealth': it returns "stealth" where gold has "Stealth"/.test(line)));
    assert.ok(!within.some((line) => /not analysed/.test(line)));
  });

  it("the judge's database facts: a text past the bounds names no table and the prompt says why; gold's tables still described", async () => {
    const names = [...schema.tables.values()].map((t) => t.name);
    assert.deepEqual(tablesNamed(HUGE, names), []);
    assert.deepEqual(tablesNamed(MANY_TOKENS, names), []);
    assert.deepEqual(tablesNamed(MANY_TOKENS.slice(0, 200) + ')', names), ['superhero'], 'within the bounds: read');
    const prompt = await describeDatabase(db, new DatabaseFacts('superhero', SAMPLE_SUPERHERO), [
      HUGE,
      'SELECT colour FROM colour WHERE id = 1',
    ]);
    assert.match(prompt, /^the tables this SQL names: not analysed, the SQL is too large \(it has 31,000,008 characters/m);
    assert.match(prompt, /^Table colour \(/m, "gold's table is described");
    assert.doesNotMatch(prompt, /^Table superhero \(/m, 'nothing was read from the text past the bounds');
  });

  it('the layout shown in the editor: past the bounds the SQL is shown as it is, within them it is laid out', () => {
    assert.equal(layoutSql(HUGE), undefined);
    assert.equal(formatSql(`  ${MANY_TOKENS}  `), MANY_TOKENS);
    assert.notEqual(formatSql(SMALL), SMALL, 'a small query is laid out');
    assert.match(formatSql(SMALL), /\n\s*superhero_name\n/);
  });

  it('the counterexample search: not searched, with the note; no work copy made', async () => {
    const outDir = tempDir('ves-lens-bounded-');
    dirs.push(outDir);
    const { search, counterexample } = await searchCounterexample(
      { dbPath: SAMPLE_SUPERHERO, gold: SMALL, prediction: MANY_TOKENS, name: 'q1' },
      { outDir, budgetMs: 5_000, maxRows: 10_000, schema },
    );
    assert.equal(counterexample, undefined);
    assert.equal(search.result, 'not_searched');
    assert.match(search.note ?? '', /^the counterexample search: not analysed, the SQL is too large \(it has more than 100,000 tokens/);
    assert.deepEqual(fs.readdirSync(outDir), []);
  });

  it('`hints`: the rules stepped aside (past the token bound) or node-sql-parser did (past its tree bound), said as such', () => {
    const dir = tempDir('ves-lens-bounded-');
    dirs.push(dir);
    const pastTokens = path.join(dir, 'past-tokens.sql');
    fs.writeFileSync(pastTokens, MANY_TOKENS);
    const run = runCli(['hints', '--db', SAMPLE_SUPERHERO, '--file', pastTokens]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /past-tokens\.sql:1:1 hints: not analysed, the SQL is too large \(it has more than 100,000 tokens/);
    assert.doesNotMatch(run.stdout, /cannot read this statement/);
    const json = JSON.parse(runCli(['hints', '--db', SAMPLE_SUPERHERO, '--file', pastTokens, '--json']).stdout);
    assert.match(json.statements[0].not_analysed, /^hints: not analysed/);
    assert.equal(json.statements[0].parse_error, null);

    // Past node-sql-parser's bound (4,000 tokens) but within the rules': the rules ran (VL002 on COUNT(*)).
    const pastTree = path.join(dir, 'past-tree.sql');
    fs.writeFileSync(pastTree, `SELECT COUNT(*) FROM superhero WHERE id IN (${Array(5_000).fill('1').join(',')})`);
    const tree = runCli(['hints', '--db', SAMPLE_SUPERHERO, '--file', pastTree]);
    assert.equal(tree.status, 0, tree.stderr);
    assert.match(tree.stdout, /past-tree\.sql:1:1 node-sql-parser: not analysed, the SQL is too large .*; the token rules still ran/);
    assert.doesNotMatch(tree.stdout, /cannot read this statement/);
    assert.match(tree.stdout, /VL002/);
    // A real syntax error is still one.
    const broken = runCli(['hints', '--db', SAMPLE_SUPERHERO, 'SELECT FROM WHERE']);
    assert.match(broken.stdout, /node-sql-parser cannot read this statement/);
  });
});
