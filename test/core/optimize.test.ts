// The optimizer on the real BIRD databases: each rule fires, keeps the rows and is measured faster on a ×10 copy;
// what must never be kept (other rows at ×1 or at ×10, a difference on a varied copy, duplicates, ties, order)
// is rejected with its reason; and the chat-model path against a loopback server that proposes right, wrong,
// slower and malformed candidates.
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { ConnectionCache, OpenDatabase } from '../../src/core/db/connectionCache';
import { QueryTimeout } from '../../src/core/db/database';
import { OpenAiChatModel } from '../../src/core/llm/openAiChat';
import { oneStepRewrites } from '../../src/core/optimize/candidates';
import { DEFAULT_OPTIMIZE_OPTIONS, optimizeStatement, OptimizeOptions } from '../../src/core/optimize/optimizeStatement';
import { StatementOptimization } from '../../src/core/optimize/types';
import { scaledCopy } from '../../src/core/scale/scaledCopy';
import { startChatServer, FakeChatServer } from '../fakeChatServer';
import { BIRD_DATA, birdDataMissing, runCli, tempDir, testCacheHome } from '../helpers';

const skip = birdDataMissing();
const dbFile = (dbId: string) => path.join(BIRD_DATA, 'databases', dbId, `${dbId}.sqlite`);

// The statements the rules were written for: the slowest of mini-dev's shared gold and predictions at ×10.
const Q738_GOLD = `SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_attribute AS T2 INNER JOIN attribute AS T3 ON T2.attribute_id = T3.id WHERE T3.attribute_name = 'Durability' AND T2.attribute_value < 50 AND T1.id = T2.hero_id)`;
const Q794_MIXTRAL = `SELECT superhero_name FROM superhero s JOIN hero_attribute ha ON s.id = ha.hero_id JOIN attribute a ON ha.attribute_id = a.id WHERE a.attribute_name = 'Speed' AND ha.attribute_value = (SELECT MAX(ha2.attribute_value) FROM hero_attribute ha2 WHERE ha2.attribute_id = a.id)`;
const Q786_MIXTRAL = `SELECT COUNT(DISTINCT s.id) FROM superhero s JOIN hero_attribute ha ON s.id = ha.hero_id JOIN attribute a ON ha.attribute_id = a.id WHERE a.attribute_name = 'Strength' AND ha.attribute_value = (SELECT MAX(attribute_value) FROM hero_attribute WHERE attribute_name = 'Strength')`;
const Q327_LLAMA = `SELECT m.label FROM molecule m WHERE m.label = '-' AND (SELECT COUNT(*) FROM atom a WHERE a.molecule_id = m.molecule_id) > 5`;
const Q198_GOLD = `SELECT AVG(single_bond_count) FROM (SELECT T3.molecule_id, COUNT(T1.bond_type) AS single_bond_count FROM bond AS T1 INNER JOIN atom AS T2 ON T1.molecule_id = T2.molecule_id INNER JOIN molecule AS T3 ON T3.molecule_id = T2.molecule_id WHERE T1.bond_type = '-' AND T3.label = '+' GROUP BY T3.molecule_id) AS subquery`;

describe('optimize on the real databases', { skip }, () => {
  const cache = ConnectionCache.withSchema();
  const scaled = ConnectionCache.connections();
  const witnessDir = tempDir('ves-lens-optimize-witness-');
  const open = (dbId: string) => cache.open(dbFile(dbId));
  const x10 = async (dbId: string) =>
    (await scaled.open(await scaledCopy(dbFile(dbId), 10, { cacheDir: path.join(testCacheHome(), 'scaled') }))).db;
  // A short limit keeps the test quick: an original past it at ×10 is measured as a bound (at least limit / rewrite).
  const options = (extra: Partial<OptimizeOptions> = {}): OptimizeOptions => ({
    ...DEFAULT_OPTIMIZE_OPTIONS,
    timeoutMs: 10_000,
    statementBudgetMs: 60_000,
    counterexampleMs: 3_000,
    witnessDir,
    ...extra,
  });
  // Each rule alone (its companions where it needs one), so the test says what that rule does.
  const atX10 = async (dbId: string, sql: string, rules: string[]) => {
    const one: OpenDatabase = await open(dbId);
    return optimizeStatement(
      sql,
      { db: one.db, schema: one.schema, scaled: { factor: 10, db: await x10(dbId) } },
      options({ onlyRules: rules }),
    );
  };
  after(async () => {
    await cache.closeAll();
    await scaled.closeAll();
    fs.rmSync(witnessDir, { recursive: true, force: true });
  });

  const assertKeptFaster = (result: StatementOptimization, rule: string) => {
    assert.equal(result.status, 'optimized', JSON.stringify({ notes: result.notes, rejected: result.rejected }, null, 1));
    const best = result.best!;
    assert.ok(best.patterns.includes(rule), `kept ${best.patterns.join('+')}, expected ${rule}`);
    assert.equal(best.scale, 10);
    assert.ok(best.low > 1.1, `the whole interval above 1: low ${best.low}`);
    assert.ok(best.verification.sameRows.set && best.verification.sameRows.bag);
    assert.ok(best.verification.sameRows.scales.includes(1));
    assert.notEqual(best.verification.counterexample.result, 'found');
    assert.notEqual(best.verification.proof, 'proven'); // derived tables and IN are outside the equivalence subset
    assert.equal(best.verification.proof, 'by-rule');
  };

  it('VL020: a correlated EXISTS computed once as IN (q738 gold), faster at ×10 with the same rows', async () => {
    assertKeptFaster(await atX10('superhero', Q738_GOLD, ['VL020']), 'VL020');
  });

  it('VL020: a correlated NOT EXISTS as the NULL-safe NOT IN keeps every row, NULL keys included', async () => {
    // hero_power.hero_id has rows; publisher_id is NULL for some heroes: NOT EXISTS keeps them, so must the rewrite.
    const sql = `SELECT COUNT(*) FROM superhero AS s WHERE NOT EXISTS (SELECT 1 FROM publisher AS p WHERE p.id = s.publisher_id AND p.publisher_name = 'Marvel Comics')`;
    const one = await open('superhero');
    const result = await optimizeStatement(sql, { db: one.db, schema: one.schema }, options({ onlyRules: ['VL020'] }));
    const form = [...result.rejected.map((r) => r.sql), ...(result.best ? [result.best.sql] : [])].find((s) => /NOT IN/.test(s));
    assert.ok(form, JSON.stringify(result));
    assert.ok(
      !result.rejected.some((r) => r.sql === form && (r.reason === 'changes-rows' || r.reason === 'counterexample')),
      JSON.stringify(result.rejected),
    );
  });

  it("an original whose own timing run passes the limit (a busy machine) is a lower bound, not the run's failure", async () => {
    const one = await open('superhero');
    // The real connection, but its engine's timed runs pass the limit, as a second run of a query near it can.
    const overLimit = { ...one.db.engine, timeExecution: () => Promise.reject(new QueryTimeout(10_000)) };
    const db = Object.create(one.db, { engine: { value: overLimit } }) as typeof one.db;
    const result = await optimizeStatement(Q738_GOLD, { db, schema: one.schema }, options({ onlyRules: ['VL020'] }));
    assert.notEqual(result.status, 'original-fails', JSON.stringify(result.notes));
    assert.equal(result.original.cutOff, true);
    assert.ok(
      result.notes.some((note) => /timing the original ran past 10\.0 s .*speed-ups are lower bounds/.test(note)),
      result.notes.join('\n'),
    );
  });

  it('VL021: a correlated MAX in WHERE as a pre-aggregated join (q794), faster at ×10', async () => {
    const result = await atX10('superhero', Q794_MIXTRAL, ['VL021']);
    assertKeptFaster(result, 'VL021');
    assert.match(result.best!.sql, /GROUP BY ha2\.attribute_id\) AS vl_agg1 ON vl_agg1\.vl_k1 = a\.id/);
  });

  it('VL021: a correlated COUNT through LEFT JOIN and COALESCE (q327), faster at ×10', async () => {
    const result = await atX10('toxicology', Q327_LLAMA, ['VL021']);
    assertKeptFaster(result, 'VL021');
    assert.match(result.best!.sql, /LEFT JOIN/);
    assert.match(result.best!.sql, /COALESCE\(vl_agg1\.vl_value, 0\) > 5/);
  });

  it('VL022: a condition on the outer row (a column the subquery lacks) moved out of the subquery (q786), faster at ×10', async () => {
    const result = await atX10('superhero', Q786_MIXTRAL, ['VL022']);
    assertKeptFaster(result, 'VL022');
    assert.match(result.best!.sql, /\(SELECT MAX\(attribute_value\)\s+FROM hero_attribute\s*\)/);
  });

  it('VL023 + VL024: a fanned-out table pre-aggregated before the join, with the implied join equality (q198 gold), faster at ×10', async () => {
    const result = await atX10('toxicology', Q198_GOLD, ['VL023', 'VL024']);
    assertKeptFaster(result, 'VL023');
    assert.ok(result.best!.patterns.includes('VL024'), result.best!.patterns.join('+'));
    assert.match(result.best!.sql, /T1\.molecule_id = T3\.molecule_id/);
    assert.match(result.best!.sql, /COUNT\(\*\) AS vl_n FROM atom GROUP BY molecule_id/);
  });

  it('VL025: an OR across tables of a DISTINCT query as a UNION of its branches, with the same rows', async () => {
    const sql = `SELECT DISTINCT b.bond_id FROM bond b JOIN connected c1 ON b.bond_id = c1.bond_id JOIN atom a1 ON c1.atom_id = a1.atom_id JOIN connected c2 ON b.bond_id = c2.bond_id JOIN atom a2 ON c2.atom_id2 = a2.atom_id WHERE a1.element = 'cl' AND a2.element = 'c' OR a1.element = 'c' AND a2.element = 'cl'`;
    const one = await open('toxicology');
    const forms = oneStepRewrites(sql, one.schema).filter((c) => c.rule === 'VL025');
    assert.equal(forms.length, 1);
    assert.equal(forms[0].sql.split(' UNION ').length, 2);
    const result = await optimizeStatement(sql, { db: one.db, schema: one.schema }, options({ onlyRules: ['VL025'] }));
    // Kept or not (it is measured), it never returns other rows.
    assert.ok(!result.rejected.some((r) => r.reason === 'changes-rows' || r.reason === 'counterexample'), JSON.stringify(result.rejected));
    assert.equal(oneStepRewrites(sql.replace('SELECT DISTINCT', 'SELECT'), one.schema).filter((c) => c.rule === 'VL025').length, 0);
  });

  it('rules stay silent where their proof conditions fail', async () => {
    const { schema } = await open('superhero');
    const rules = (sql: string) => oneStepRewrites(sql, schema).map((c) => c.rule);
    // NOT EXISTS is not NOT IN (NULLs): VL020 writes the NULL-safe form, never a bare NOT IN.
    const negated = oneStepRewrites(Q738_GOLD.replace('WHERE EXISTS', 'WHERE NOT EXISTS'), schema).filter((c) => c.rule === 'VL020');
    assert.equal(negated.length, 1);
    assert.match(negated[0].sql, /\(T1\.id IS NULL OR T1\.id NOT IN \(SELECT T2\.hero_id .* AND T2\.hero_id IS NOT NULL\)\)/);
    // Under OR, a NULL and a false no longer both drop the row: no rule moves the subquery.
    assert.deepEqual(
      rules(`${Q738_GOLD} OR T1.id = 1`).filter((r) => r.startsWith('VL02')),
      [],
    );
    // A correlated COUNT compared with IS (not NULL-rejecting) stays as it is.
    assert.ok(!rules(Q794_MIXTRAL.replace('ha.attribute_value = (', 'ha.attribute_value IS (')).includes('VL021'));
    // SUM over a fan-out would weight floats: VL023 only rewrites COUNT, MIN and MAX.
    const { schema: tox } = await open('toxicology');
    assert.ok(!oneStepRewrites(Q198_GOLD.replace('COUNT(T1.bond_type)', 'SUM(T1.bond_type)'), tox).some((c) => c.rule === 'VL023'));
  });

  describe('what must never be kept', () => {
    let server: FakeChatServer;
    let replies: (body: { messages: { content: string }[] }) => string = () => '{"candidates": []}';
    before(async () => {
      server = await startChatServer((request) => ({ content: replies(request.body) }));
    });
    after(() => server.close());
    const model = () => new OpenAiChatModel({ endpoint: server.url, model: 'optimizer-test', timeoutMs: 5_000, maxRetries: 0 });
    const proposals = (...sql: string[]) => JSON.stringify({ candidates: sql.map((s) => ({ sql: s, why: 'test' })) });
    const modelOnly = async (dbId: string, sql: string, extra: Partial<OptimizeOptions> = {}) => {
      const one = await open(dbId);
      return optimizeStatement(
        sql,
        { db: one.db, schema: one.schema },
        options({ useRules: false, model: model(), modelRounds: 1, ...extra }),
      );
    };
    const reasonOf = (result: StatementOptimization, sql: string) => result.rejected.find((r) => r.sql === sql)?.reason;

    it('other rows on the database (NULLs, duplicates, ties, order) are rejected with what differs', async () => {
      const original = `SELECT superhero_name FROM superhero WHERE publisher_id IN (SELECT id FROM publisher WHERE publisher_name = 'Marvel Comics') ORDER BY superhero_name`;
      const unordered = `SELECT superhero_name FROM superhero WHERE publisher_id IN (SELECT id FROM publisher WHERE publisher_name = 'Marvel Comics') ORDER BY superhero_name DESC`;
      const deduplicated = `SELECT DISTINCT superhero_name FROM superhero WHERE publisher_id IN (SELECT id FROM publisher WHERE publisher_name = 'Marvel Comics') ORDER BY superhero_name`;
      const nullsIn = `SELECT superhero_name FROM superhero WHERE publisher_id IN (SELECT id FROM publisher WHERE publisher_name = 'Marvel Comics') OR publisher_id IS NULL ORDER BY superhero_name`;
      replies = () => proposals(unordered, deduplicated, nullsIn);
      const result = await modelOnly('superhero', original);
      assert.equal(result.best, null);
      for (const sql of [unordered, deduplicated, nullsIn]) assert.equal(reasonOf(result, sql), 'changes-rows', sql);
      assert.match(result.rejected.find((r) => r.sql === unordered)!.detail, /another order/);
      assert.match(result.rejected.find((r) => r.sql === deduplicated)!.detail, /duplicates differ|repeated/);
      // Ties: the tallest heroes (two share the greatest height) are not ORDER BY … LIMIT 1's one row.
      const tallest = `SELECT superhero_name FROM superhero ORDER BY height_cm DESC LIMIT 1`;
      const byMax = `SELECT superhero_name FROM superhero WHERE height_cm = (SELECT MAX(height_cm) FROM superhero)`;
      replies = () => proposals(byMax);
      assert.equal(reasonOf(await modelOnly('superhero', tallest), byMax), 'changes-rows');
    });

    it('equal on this data but not on a varied copy: the counterexample database is the witness, never kept', async () => {
      // The heaviest hero is unique here, so both forms return one row; on a copy with a tie at the top they differ.
      // The pair count (no index helps it) makes the original ~20 ms against the fast form's ~1 ms: the search times
      // each form once, and a 4 ms original (a.id < b.id, by rowid ranges) let one stall on a busy CI leg reject the
      // fast form as not faster before its counterexample was looked for.
      const original = `SELECT superhero_name FROM superhero WHERE weight_kg = (SELECT MAX(weight_kg) FROM superhero) AND (SELECT COUNT(*) FROM superhero a, superhero b WHERE a.id + b.id > 0) >= 0`;
      const fastButWrong = `SELECT superhero_name FROM superhero ORDER BY weight_kg DESC LIMIT 1`;
      replies = () => proposals(fastButWrong);
      const result = await modelOnly('superhero', original, { counterexampleMs: 20_000 });
      assert.equal(result.best, null, JSON.stringify(result.rejected));
      const rejected = result.rejected.find((r) => r.sql === fastButWrong)!;
      assert.equal(rejected.reason, 'counterexample');
      assert.ok(rejected.witness && fs.existsSync(rejected.witness), `the witness database is kept: ${rejected.witness}`);
    });

    it("a model's right, wrong, slower and malformed proposals: only the right one is kept, labelled tested", async () => {
      const right = `SELECT m.label FROM molecule m LEFT JOIN (SELECT molecule_id AS k, COUNT(*) AS n FROM atom GROUP BY molecule_id) AS c ON c.k = m.molecule_id WHERE m.label = '-' AND COALESCE(c.n, 0) > 5`;
      const wrong = `SELECT m.label FROM molecule m WHERE m.label = '-'`;
      const slower = `${Q327_LLAMA} AND (SELECT COUNT(*) FROM atom a2, atom a3 WHERE a2.molecule_id = m.molecule_id AND a3.molecule_id = m.molecule_id) >= 0`;
      const broken = `SELEC m.label FROM molecule m`;
      let calls = 0;
      replies = () => {
        calls++;
        if (calls === 1) return 'Use a join instead of the subquery.'; // not JSON: the model is asked once more
        if (calls === 2) return proposals(wrong, slower, broken, right);
        return '{"candidates": []}';
      };
      const before = server.requests.length;
      const result = await modelOnly('toxicology', Q327_LLAMA, { modelRounds: 2 });
      assert.equal(result.status, 'optimized', JSON.stringify(result.rejected));
      assert.equal(result.best!.sql, right);
      assert.deepEqual(result.best!.patterns, ['model']);
      assert.equal(result.best!.verification.proof, 'tested');
      assert.equal(reasonOf(result, wrong), 'changes-rows');
      assert.equal(reasonOf(result, broken), 'fails');
      assert.ok(['slower', 'not-faster'].includes(reasonOf(result, slower) ?? ''), reasonOf(result, slower));
      // Round 2 tells the model what failed and why.
      const second = server.requests.slice(before)[2];
      assert.ok(second, 'a second round was asked');
      const prompt = second.body.messages.map((m) => m.content).join('\n');
      assert.match(prompt, /Already tried and rejected/);
      assert.ok(prompt.includes(wrong) && /changes-rows/.test(prompt));
    });
  });
});

describe('ves-lens optimize (the command)', { skip }, () => {
  it('--json: statements[] with best {sql, speedup, low, high, scale, verification} and the totals', () => {
    const run = runCli([
      'optimize',
      '--db',
      dbFile('toxicology'),
      '--timeout',
      '10',
      '--counterexample-budget',
      '2',
      '--json',
      '-',
      Q327_LLAMA,
    ]);
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    const [statement] = report.statements;
    assert.equal(statement.status, 'optimized');
    for (const key of ['sql', 'speedup', 'low', 'high', 'scale', 'verification']) assert.ok(key in statement.best, key);
    assert.equal(statement.best.scale, 1);
    assert.ok(statement.best.low > 1);
    assert.equal(report.totals.statements, 1);
    assert.ok(report.totals.saved_share > 0 && report.totals.saved_share < 1);
  });

  it('--resume takes the statements a checkpoint holds and searches the rest; a finished run removes its checkpoint', () => {
    const dir = tempDir('ves-lens-optimize-resume-');
    const file = path.join(dir, 'two.sql');
    const first = `SELECT COUNT(*) FROM atom WHERE element = 'cl'`;
    fs.writeFileSync(file, `${first};\n${Q327_LLAMA};\n`);
    const json = path.join(dir, 'out.json');
    // What an interrupted run left: the first statement, finished.
    const done = {
      sql: first,
      dbId: 'toxicology',
      status: 'no-faster-form',
      original: { ms: 1, cutOff: false, scale: 1 },
      best: null,
      tried: 0,
      rejected: [],
      rejectedCounts: {},
      notes: ['taken from the checkpoint'],
      seconds: 0,
    };
    fs.writeFileSync(`${json}.checkpoint.jsonl`, JSON.stringify(done) + '\n{"cut short');
    const run = runCli([
      'optimize',
      '--db',
      dbFile('toxicology'),
      '--file',
      file,
      '--timeout',
      '10',
      '--counterexample-budget',
      '1',
      '--json',
      json,
      '--resume',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /resuming: 1 statement taken/);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    assert.deepEqual(report.statements[0].notes, ['taken from the checkpoint']);
    assert.equal(report.statements[1].status, 'optimized');
    assert.equal(report.complete, true);
    assert.ok(!fs.existsSync(`${json}.checkpoint.jsonl`));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a usage mistake names the option, exit 2, no stack trace', () => {
    const run = runCli(['optimize', 'SELECT 1']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--db/);
    assert.doesNotMatch(run.stderr, /at .*\.js:\d+/);
    const scaled = runCli([
      'optimize',
      '--engine',
      'postgres',
      '--db-url',
      'postgresql://u:secret@127.0.0.1:1/x',
      '--db-id',
      'superhero',
      '--scale',
      '10',
      'SELECT 1',
    ]);
    assert.equal(scaled.status, 2);
    assert.doesNotMatch(scaled.stderr + scaled.stdout, /secret/);
  });
});
