import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { hintsForStatement } from '../../src/core/hints/analyze';
import { explainQuery } from '../../src/core/plan/explain';
import { parseSql } from '../../src/core/sql/ast';
import { refusalReason } from '../../src/core/sql/statements';
import { analysisBoundNote, SQL_ANALYSIS_BOUNDS } from '../../src/core/sql/textBounds';
import { sameProgram } from '../../src/core/timing/sameProgram';
import { BIRD_DATA, birdDataMissing, CLI, REPO_ROOT, tempDir, useSampleSuperhero } from '../helpers';
import { DatabaseConnection } from '../../src/core/db/engine';
import { MEMORY_BOUNDS } from '../../src/core/db/database';
import { readQuery, runnableBody } from '../../src/core/db/readQuery';
import { SqliteConnection } from '../../src/core/db/sqlite/sqliteConnection';
import { SchemaInfo } from '../../src/core/db/schema';

const GiB = 2 ** 30;
/** `SELECT 1+1+…`: 12.6 MB of text, an operator chain SQLite refuses (expression depth) and JavaScript must not recurse into. */
const chain = (chars: number) => `SELECT 1${'+1'.repeat(Math.floor((chars - 8) / 2))}`;
const columns = (chars: number) => `SELECT 1${',1'.repeat(Math.floor((chars - 8) / 2))}`;

describe('bounds on the SQL text the analyses read (issue 20, memory under 1 GiB)', () => {
  let db: DatabaseConnection;
  let schema: SchemaInfo;
  useSampleSuperhero((opened) => ({ db, schema } = opened));
  const scratch = tempDir('ves-lens-sql-bounds-');
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it("every gold and prediction of BIRD's shared files is within the bounds", (t) => {
    const missing = birdDataMissing();
    if (missing) return t.skip(missing);
    const texts = fs.readFileSync(path.join(BIRD_DATA, 'questions', 'dev_gold.damo-2023.sql'), 'utf8').split('\n');
    const folder = path.join(BIRD_DATA, 'predictions', 'minidev-official');
    for (const file of fs.readdirSync(folder))
      texts.push(...Object.values<string>(JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8'))));
    assert.ok(texts.length > 3000);
    for (const sql of texts) assert.equal(analysisBoundNote(sql, 'hints'), undefined, sql);
  });

  it('past each bound (characters, tokens, nesting) the note says which, and why', () => {
    assert.match(analysisBoundNote(columns(SQL_ANALYSIS_BOUNDS.tree.chars + 10), 'plan') ?? '', /^plan: not analysed.*100,010 characters/);
    // The analyses that walk tokens in loops (hint rules, plans) take more: a 5,000-term OR chain, not a 2 MB text.
    const orChain = `SELECT id FROM superhero WHERE ${Array.from({ length: 5000 }, (_, i) => `eye_colour_id = ${i}`).join(' OR ')}`;
    assert.equal(analysisBoundNote(orChain, 'hints', 'tokens'), undefined);
    assert.match(analysisBoundNote(orChain, 'node-sql-parser') ?? '', /118,917 characters, past the 100,000 analysed/);
    assert.match(
      analysisBoundNote(columns(2 * SQL_ANALYSIS_BOUNDS.tokens.chars), 'hints', 'tokens') ?? '',
      /2,097,15\d characters, past the 1,048,576/,
    );
    assert.match(
      analysisBoundNote(chain(9000), 'hints') ?? '',
      /^hints: not analysed.*more than 4,000 tokens.*running and scoring it are not affected/,
    );
    assert.match(analysisBoundNote(`SELECT ${'('.repeat(101)}1${')'.repeat(101)}`, 'hints') ?? '', /nest deeper than 100 levels/);
    assert.equal(analysisBoundNote(`SELECT ${'('.repeat(100)}1${')'.repeat(100)}`, 'hints'), undefined);
  });

  it('hints, node-sql-parser, plans and the same-program check step aside with the note on a 12.6 MB text', async () => {
    const sql = chain(12_600_000);
    const hinted = hintsForStatement({ start: 0, end: sql.length, text: sql, leadingComments: [] }, schema);
    assert.deepEqual(hinted.hints, []);
    assert.match(hinted.notAnalysed ?? '', /^hints: not analysed/);
    const parsed = parseSql(sql);
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? '' : parsed.error, /^node-sql-parser: not analysed/);
    // Past the bound of what runs at all (MEMORY_BOUNDS.statementBytes), the plan is refused with the run.
    const plan = await explainQuery(db, sql, schema);
    assert.match(plan.error ?? '', /^the SQL has 12,600,000 bytes, past the 262,144 VES Lens runs .*: not run$/);
    assert.match((await explainQuery(db, chain(200_000), schema)).error ?? '', /^plan: not analysed/);
    assert.equal(await sameProgram(db, sql, sql), false);
    // Within the bounds they still work: a deep chain node-sql-parser reads without overflowing the stack.
    assert.equal(parseSql(chain(3000)).ok, true);
    assert.equal(await sameProgram(db, 'SELECT 1 + 1', 'select 1+1'), true);
    assert.ok(process.memoryUsage().rss < GiB);
  });

  it('an entry past MEMORY_BOUNDS.statementBytes (UTF-8 bytes) is refused before it is read; SQLite itself compiles none much longer', async () => {
    const bound = MEMORY_BOUNDS.statementBytes;
    const within = `SELECT '${'x'.repeat(bound - 9)}'`;
    assert.equal(Buffer.byteLength(within), bound);
    const ran = await readQuery(db, within, { maxRows: 10 });
    assert.equal(ran.status, 'ok');
    // Fewer characters than the bound, more bytes: 'é' takes two.
    const accented = `SELECT '${'é'.repeat(bound / 2)}'`;
    assert.ok(accented.length < bound);
    const refused = await readQuery(db, accented, { maxRows: 10 });
    assert.deepEqual(refused.status, 'refused');
    assert.match('message' in refused ? refused.message : '', /^the SQL has 262,153 bytes, past the 262,144 VES Lens runs .*: not run$/);
    assert.deepEqual(runnableBody(accented, 'postgres'), refused);
    // What reaches the driver another way (EXPLAIN, a wrapper) meets SQLite's own limit, worded as ours.
    await assert.rejects(
      (db as SqliteConnection).all(`SELECT '${'x'.repeat(2 * 2 ** 20)}'`),
      /^Error: statement too long \(VES Lens compiles at most 1\.25 MiB of SQL\)$/,
    );
  });

  it('the check before running reads a 31 MB text in constant memory, and still refuses a write at its end', () => {
    const huge = columns(31 * 2 ** 20);
    const before = process.memoryUsage().rss;
    assert.equal(refusalReason(huge), null);
    assert.equal(refusalReason(`${huge} FROM t WHERE load_extension('x')`), 'load_extension() is not allowed');
    assert.ok(process.memoryUsage().rss - before < 256 * 2 ** 20, `rss grew by ${(process.memoryUsage().rss - before) / 2 ** 20} MiB`);
  });

  it('eval of a 12.6 MB `SELECT 1+1+…` prediction, in a process of its own: refused as too long to run, peak RSS < 1 GiB', () => {
    const questions = path.join(scratch, 'q.json');
    const predictions = path.join(scratch, 'p.sql');
    const report = path.join(scratch, 'r.json');
    const rss = path.join(scratch, 'rss');
    const question = {
      question_id: 0,
      db_id: 'superhero',
      question: '',
      evidence: '',
      SQL: 'SELECT count(*) FROM superhero',
      difficulty: 'simple',
    };
    fs.writeFileSync(questions, JSON.stringify([question]));
    fs.writeFileSync(predictions, chain(12_600_000) + '\n');
    const run = spawnSync(
      process.execPath,
      [
        '--require',
        path.join(REPO_ROOT, 'bench', 'peak-rss.cjs'),
        CLI,
        'eval',
        '--questions',
        questions,
        '--predictions',
        predictions,
        '--db-root',
        path.join(REPO_ROOT, 'sample'),
        '--metrics',
        'ex,f1',
        '--json',
        report,
        '--no-progress',
      ],
      { encoding: 'utf8', env: { ...process.env, VES_LENS_RSS_FILE: rss, NO_COLOR: '1' }, timeout: 120_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(fs.readFileSync(report, 'utf8')).questions[0];
    assert.equal(result.outcome, 'refused');
    assert.match(result.error, /^the SQL has 12,600,000 bytes, past the 262,144 VES Lens runs/);
    const peak = Number(fs.readFileSync(rss, 'utf8'));
    assert.ok(peak < GiB, `peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`);
  });
});
