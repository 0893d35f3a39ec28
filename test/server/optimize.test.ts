// "Find a faster equivalent" and index advice through the real language server (dist/server.js over stdio) on the
// shared BIRD toxicology database. The statement counts each molecule's atoms in a correlated subquery: VL021
// turns it into a pre-aggregated join, which the server must find, prove by the rule's conditions (never
// "proven"), measure faster (its whole interval above 1), and offer as an edit of the document. The edit is
// applied outside VES Lens and both statements run by Python's own sqlite3: the same rows, as a bag. Also: the
// steps reported while it runs, Cancel, and index advice that never writes the database.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { LSPErrorCodes } from 'vscode-languageserver-protocol';
import { VesLensService } from '../../src/server/service';
import { DEFAULT_SETTINGS } from '../../src/shared/settings';
import { IndexAdviceRequest, OptimizeRequest, OptimizeResult } from '../../src/shared/protocol';
import { pythonBags } from '../pythonBags';
import { BIRD_DATA, birdDataMissing, sha256, tempDir } from '../helpers';
import { ServerProcess } from './lspClient';

const dataset = {
  questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'),
  goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite_gold.v1-2024.sql'),
  dbRoot: path.join(BIRD_DATA, 'databases'),
};
const TOXICOLOGY = path.join(BIRD_DATA, 'databases', 'toxicology', 'toxicology.sqlite');
const SLOW = "SELECT m.label FROM molecule m WHERE m.label = '-' AND (SELECT COUNT(*) FROM atom a WHERE a.molecule_id = m.molecule_id) > 5";

describe('Find a faster equivalent (language server over stdio, toxicology)', { skip: birdDataMissing() }, () => {
  let server: ServerProcess;
  const storageDir = tempDir('ves-lens-storage-');
  let databaseHash: string;

  before(async () => {
    databaseHash = sha256(TOXICOLOGY);
    server = new ServerProcess();
    await server.initialize({
      dataset,
      trusted: true,
      storageDir,
      settings: { optimizeBudgetSeconds: 60, optimizeCounterexampleSeconds: 3, optimizeTimeoutSeconds: 20 },
    });
  });
  after(() => server.stop());

  it('finds the VL021 rewrite of a statement in a .sql document, by rule, measured faster, as an edit that keeps the rows', async () => {
    const uri = 'file:///tmp/optimize-me.sql';
    const text = `SELECT 1;\n\n-- db: toxicology\n${SLOW};\n`;
    await server.open(uri, 'sql', text);
    const offset = text.indexOf('SELECT m.label');
    const token = 'optimize-1';
    const steps: string[] = [];
    const listening = server.connection.onNotification('$/progress', (params: { token: string; value: { message: string } }) => {
      if (params.token === token) steps.push(params.value.message);
    });
    const result = (await server.connection.sendRequest(OptimizeRequest, { uri, offset, progressToken: token })) as OptimizeResult;
    listening.dispose();

    const o = result.optimization;
    assert.equal(o.status, 'optimized', JSON.stringify({ notes: o.notes, rejected: o.rejected }));
    const best = o.best!;
    assert.ok(best.patterns.includes('VL021'), best.patterns.join('+'));
    assert.notEqual(best.verification.proof, 'proven', 'equal on the data and by the rule, not proven');
    assert.equal(best.verification.proof, 'by-rule');
    assert.ok(best.low > 1 && best.speedup >= best.low, `${best.low}–${best.high}`);
    assert.equal(best.scale, 1);
    assert.deepEqual(
      best.measurements.map((m) => m.scale),
      [1],
    );
    assert.equal(result.bounds.scale, 1);
    assert.equal(result.dbId, 'toxicology');
    assert.equal(result.source?.line, 4);
    assert.ok(result.formatted.rewrite && result.formatted.original !== result.formatted.rewrite);
    assert.ok(o.tried >= 1);
    // The steps the search reported, plain text (no terminal codes, though the server runs with FORCE_COLOR).
    assert.ok(
      steps.some((s) => /^original: /.test(s)),
      steps.join(' | '),
    );
    assert.ok(steps.some((s) => /VL021.*measuring/.test(s)));
    assert.ok(!steps.some((s) => s.includes('\x1b')));

    // The edit replaces exactly the statement; applied, the document runs the rewrite, with the original's rows.
    const edit = result.edit!;
    assert.equal(edit.uri, uri);
    assert.equal(edit.version, 1);
    assert.equal(text.slice(edit.start, edit.end), SLOW);
    const applied = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    assert.ok(applied.startsWith('SELECT 1;\n\n-- db: toxicology\n') && applied.endsWith(';\n'));
    const rewritten = applied.slice(edit.start, applied.lastIndexOf(';'));
    assert.equal(rewritten, best.sql);
    const [originalRows, rewriteRows] = pythonBags(TOXICOLOGY, SLOW, rewritten);
    assert.ok(originalRows.length > 0);
    assert.deepEqual(rewriteRows, originalRows);
    assert.equal(sha256(TOXICOLOGY), databaseHash, 'the database is never written');
  });

  it('escapes the rewrite as JSON inside a prediction file', async () => {
    const uri = 'file:///tmp/predictions.json';
    const text = JSON.stringify({ '0': `${SLOW}\t----- bird -----\ttoxicology` }, null, 2);
    await server.open(uri, 'json', text);
    const result = await server.connection.sendRequest(OptimizeRequest, { uri, offset: text.indexOf('SELECT m.label') });
    assert.equal(result.optimization.status, 'optimized');
    const applied = text.slice(0, result.edit!.start) + result.edit!.text + text.slice(result.edit!.end);
    const entry = (JSON.parse(applied) as Record<string, string>)['0'];
    assert.equal(entry, `${result.optimization.best!.sql}\t----- bird -----\ttoxicology`);
  });

  it('answers Cancel at once', async () => {
    const cancel = new CancellationTokenSource();
    const started = performance.now();
    const searching = server.connection.sendRequest(OptimizeRequest, { sql: SLOW, dbId: 'toxicology' }, cancel.token);
    await new Promise((resolve) => setTimeout(resolve, 600));
    cancel.cancel();
    await assert.rejects(searching, (error: { code?: number }) => error.code === LSPErrorCodes.RequestCancelled);
    assert.ok(performance.now() - started < 3000, `answered ${Math.round(performance.now() - started)} ms after it started`);
  });

  it('says which database is missing instead of searching', async () => {
    await assert.rejects(server.connection.sendRequest(OptimizeRequest, { sql: SLOW, dbId: 'no_such_db' }), /no_such_db/);
  });

  it('gives index advice apart from rewrites: the planner would use an index on atom(element), and measures it when asked', async () => {
    const sql = "SELECT COUNT(*) FROM atom WHERE element = 'cl'";
    const advice = await server.connection.sendRequest(IndexAdviceRequest, { sql, dbId: 'toxicology' });
    assert.equal(advice.error, undefined);
    assert.equal(advice.measured, false);
    const onElement = advice.verdicts.find((v) => v.table === 'atom' && v.columns.includes('element'));
    assert.ok(onElement, JSON.stringify(advice.verdicts));
    assert.ok(onElement.used);
    assert.match(onElement.createSql, /^CREATE INDEX .* ON .*atom.*element/i);
    const measured = await server.connection.sendRequest(IndexAdviceRequest, { sql, dbId: 'toxicology', measure: true });
    const timed = measured.verdicts.find((v) => v.name === onElement.name)!;
    assert.ok(timed.measured || timed.unmeasured, JSON.stringify(timed));
    if (timed.measured) {
      assert.ok(timed.measured.runs > 0 && timed.measured.low <= timed.measured.ratio && timed.measured.ratio <= timed.measured.high);
      assert.equal(timed.recommended, timed.speed === 'faster');
    }
    assert.equal(sha256(TOXICOLOGY), databaseHash, 'no index is ever created on the database');
  });
});

describe('Audit Gold SQL with vesLens.optimize.inAudit (service in-process, toxicology)', { skip: birdDataMissing() }, () => {
  it("puts each gold's verified rewrite on its entry and on the audit page, ranked by the time it saves", async () => {
    const dir = tempDir();
    const questionsFile = path.join(dir, 'questions.json');
    const question = (id: number, sql: string) => ({ question_id: id, db_id: 'toxicology', question: `q${id}`, evidence: '', SQL: sql });
    fs.writeFileSync(questionsFile, JSON.stringify([question(1, SLOW), question(2, "SELECT COUNT(*) FROM molecule WHERE label = '+'")]));
    const service = new VesLensService({ documents: { get: () => undefined, all: () => [] }, log: () => {}, docsRoot: '' });
    await service.initialize({
      trusted: true,
      storageDir: tempDir('ves-lens-storage-'),
      dataset: { questionsFile, dbRoot: dataset.dbRoot },
      settings: { ...DEFAULT_SETTINGS, optimizeInAudit: true, optimizeCounterexampleSeconds: 3 },
    });
    const steps: string[] = [];
    const result = await service.auditGold({ correctness: false }, undefined, (value) => steps.push(value.message));
    await service.dispose();
    const [slow, plain] = result.audit.entries;
    assert.ok(slow.optimized?.patterns.includes('VL021'), JSON.stringify(slow));
    assert.equal(slow.optimized!.verification.proof, 'by-rule');
    assert.ok(slow.optimized!.low > 1);
    assert.equal(plain.optimized, undefined);
    assert.deepEqual(result.audit.optimize?.by_time_saved, [1]);
    assert.ok(
      steps.some((s) => /^faster equivalent 1\/2: question 1 \(toxicology\)/.test(s)),
      steps.join(' | '),
    );
    assert.match(result.html, /Time the gold could save: verified rewrites[\s\S]*LEFT JOIN/);
  });
});
