// Cost-aware re-ranking end to end (K candidate files → picked predictions → eval → compare) and the gold
// audit, as real processes on a few real mini-dev questions (superhero) with the official prediction files as
// candidates.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, runCli, sha256, tempDir } from '../helpers';

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env });
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const DB_ROOT = path.join(BIRD_DATA, 'databases');
const MODELS = ['gpt-4_sqlite', 'gpt-4-o_cot_SQLite', 'meta-llama-3-8b-instruct-2_sqlite', 'mistralai-mixtral-8x7b-instru-4_sqlite'];

/** A question file of the given mini-dev question ids, and each official prediction file cut to them (official format, by position). */
function subset(dir: string, ids: number[]): { questions: string; candidates: string[] } {
  const all = JSON.parse(fs.readFileSync(path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json'), 'utf8')) as {
    question_id: number;
  }[];
  const positions = ids.map((id) => all.findIndex((q) => q.question_id === id));
  const questions = path.join(dir, 'questions.json');
  fs.writeFileSync(questions, JSON.stringify(positions.map((p) => all[p])));
  const candidates = MODELS.map((model) => {
    const values = Object.values(
      JSON.parse(fs.readFileSync(path.join(BIRD_DATA, 'predictions', 'minidev-official', `predict_mini_dev_${model}.json`), 'utf8')),
    );
    const file = path.join(dir, `${model}.json`);
    fs.writeFileSync(file, JSON.stringify(Object.fromEntries(positions.map((p, i) => [String(i), values[p]]))));
    return file;
  });
  return { questions, candidates };
}

type Candidate = { index: number; executable: boolean; rule: number | null; work: number | null; ms?: number | null };
type Picked = {
  question_id: number;
  chosen: number;
  sql: string;
  candidates: Candidate[];
  rho?: { rule: number | null; estimate: number | null };
};

describe('ves-lens rerank over a question file, then eval and compare (Baseline vs M4)', { skip: birdDataMissing() }, () => {
  const dir = tempDir();
  let files: { questions: string; candidates: string[] };
  before(() => {
    files = subset(dir, [717, 719, 723, 724, 726, 728, 730, 732, 733, 736]);
  });

  it('picks the cheapest runnable candidate by the row-aware estimate and writes an official prediction file', () => {
    const out = path.join(dir, 'm4.json');
    const result = run([
      'rerank',
      '--questions',
      files.questions,
      '--db-root',
      DB_ROOT,
      '--predictions',
      ...files.candidates,
      '--out',
      out,
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.by, 'estimate');
    assert.equal(report.questions.length, 10);
    for (const q of report.questions as Picked[]) {
      assert.equal(q.candidates.length, 4);
      const runnable = q.candidates.filter((c) => c.executable);
      if (runnable.length === 0) {
        assert.equal(q.chosen, 0);
        continue;
      }
      const chosen = q.candidates[q.chosen];
      assert.ok(chosen.executable, `question ${q.question_id}: the pick runs`);
      for (const c of runnable) {
        assert.ok(
          chosen.work! < c.work! ||
            (chosen.work === c.work && (chosen.rule! < c.rule! || (chosen.rule === c.rule && chosen.index <= c.index))),
          `question ${q.question_id}: #${chosen.index} is cheapest`,
        );
      }
    }
    const picked = read(out);
    assert.deepEqual(
      Object.keys(picked),
      Array.from({ length: 10 }, (_, i) => String(i)),
    );
    (report.questions as Picked[]).forEach((q, i) => assert.equal(picked[String(i)], `${q.sql}\t----- bird -----\tsuperhero`));
    assert.ok(report.changed >= 1, 'at least one question picks another candidate than the first');
  });

  it('--by rule uses the seed weights alone (SCAN +100, temp B-tree +50, SEARCH 0), ties to the earlier candidate', () => {
    const result = run([
      'rerank',
      '--questions',
      files.questions,
      '--db-root',
      DB_ROOT,
      '--predictions',
      ...files.candidates,
      '--by',
      'rule',
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    for (const q of JSON.parse(result.stdout).questions as Picked[]) {
      const runnable = q.candidates.filter((c) => c.executable);
      if (runnable.length === 0) continue;
      const best = Math.min(...runnable.map((c) => c.rule!));
      assert.equal(q.chosen, runnable.find((c) => c.rule === best)!.index, `question ${q.question_id}`);
    }
  });

  it('a candidate list (question_id and several SQL) picks as the K files do; --measure gives Spearman ρ per question and pooled', () => {
    const questions = JSON.parse(fs.readFileSync(files.questions, 'utf8')) as { question_id: number }[];
    const columns = files.candidates.map((file) => Object.values(read(file)).map((v) => String(v).split('\t----- bird -----\t')[0]));
    const list = path.join(dir, 'list.json');
    fs.writeFileSync(list, JSON.stringify(questions.map((q, i) => ({ question_id: q.question_id, candidates: columns.map((c) => c[i]) }))));
    const fromList = JSON.parse(
      run(['rerank', '--questions', files.questions, '--db-root', DB_ROOT, '--candidates', list, '--json']).stdout,
    );
    const fromFiles = JSON.parse(
      run(['rerank', '--questions', files.questions, '--db-root', DB_ROOT, '--predictions', ...files.candidates, '--json']).stdout,
    );
    assert.deepEqual(
      fromList.questions.map((q: Picked) => q.chosen),
      fromFiles.questions.map((q: Picked) => q.chosen),
    );

    const measured = run([
      'rerank',
      '--questions',
      files.questions,
      '--db-root',
      DB_ROOT,
      '--candidates',
      list,
      '--measure',
      '--out',
      path.join(dir, 'm4-list.json'),
    ]);
    assert.equal(measured.status, 0, measured.stderr);
    assert.match(
      measured.stdout,
      /rule cost: mean ρ per question (-?[\d.]+|-) \(\d+ questions with 3\+ distinct runnable candidates\), pooled ρ -?[\d.]+ \(\d+ statements\)/,
    );
    assert.match(measured.stdout, /row-aware estimate: mean ρ per question/);
    const json = JSON.parse(
      run(['rerank', '--questions', files.questions, '--db-root', DB_ROOT, '--candidates', list, '--measure', '--json']).stdout,
    );
    for (const key of ['rule', 'estimate']) {
      const c = json.correlation[key];
      assert.ok(c.statements >= 10 && c.pooled >= -1 && c.pooled <= 1, JSON.stringify(c));
    }
    assert.ok(json.questions.every((q: Picked) => q.rho && q.candidates.every((c) => !c.executable || typeof c.ms === 'number')));
  });

  it('eval of the first candidates and of the picks, then compare: the Baseline vs M4 report', () => {
    const picks = path.join(dir, 'm4.json');
    const reports = [files.candidates[0], picks].map((predictions, i) => {
      const json = path.join(dir, `eval-${i}.json`);
      const result = run([
        'eval',
        '--questions',
        files.questions,
        '--predictions',
        predictions,
        '--db-root',
        DB_ROOT,
        '--metrics',
        'ex,f1',
        '--json',
        json,
        '--no-progress',
      ]);
      assert.equal(result.status, 0, result.stderr);
      return json;
    });
    const result = run(['compare', ...reports, '--json']);
    assert.equal(result.status, 0, result.stderr);
    const out = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(out.deltas), ['ex', 'f1']);
    assert.ok(typeof out.ex_mcnemar_p === 'number');
  });

  it('says what is missing or wrong (exit 2)', () => {
    const cases: [string[], RegExp][] = [
      [['rerank', '--questions', files.questions, '--predictions', files.candidates[0]], /needs --questions and --db-root/],
      [
        ['rerank', '--questions', files.questions, '--db-root', DB_ROOT, '--out', path.join(dir, 'x.json')],
        /give the candidates with --candidates/,
      ],
      [
        ['rerank', '--db', path.join(DB_ROOT, 'superhero', 'superhero.sqlite')],
        /required option '--candidates <file>' not specified \(one question: give --db and --candidates/,
      ],
      [
        ['rerank', '--questions', files.questions, '--db-root', DB_ROOT, '--candidates', files.questions, '--json'],
        /questions\.json \(item 0\): no list of candidate SQL/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = run(args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});

describe('ves-lens audit (real processes)', { skip: birdDataMissing() }, () => {
  const dir = tempDir();

  it('ranks the gold worth another look: verified faster rewrite, index gain, faster correct predictions (files and eval reports)', () => {
    const files = subset(dir, [717, 738, 736]);
    const before = sha256(path.join(DB_ROOT, 'superhero', 'superhero.sqlite'));
    // One input is an eval report (read, not re-run), the other a prediction file (scored by the audit).
    const report = path.join(dir, 'cot-eval.json');
    assert.equal(
      run([
        'eval',
        '--questions',
        files.questions,
        '--predictions',
        files.candidates[1],
        '--db-root',
        DB_ROOT,
        '--metrics',
        'ex,rves',
        '--json',
        report,
        '--no-progress',
      ]).status,
      0,
    );
    const json = path.join(dir, 'audit.json');
    const html = path.join(dir, 'audit.html');
    const result = run([
      'audit',
      '--questions',
      files.questions,
      '--db-root',
      DB_ROOT,
      '--predictions',
      report,
      files.candidates[0],
      '--json',
      json,
      '--html',
      html,
      '--no-progress',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /3 gold SQL audited: 0 fail, \d+ have a verified faster rewrite/);
    assert.match(result.stdout, /Gold SQL worth another look: \d+\n1\. question 738 \(superhero, simple\)/);
    const audit = read(json);
    const q738 = audit.ranked[0];
    assert.equal(q738.question_id, 738);
    assert.equal(q738.status, 'ok');
    assert.ok(q738.plan.correlated_subqueries >= 0 && q738.plan.rule >= 100);
    const vl001 = q738.rewrites.find((r: { rule: string }) => r.rule === 'VL001');
    assert.equal(vl001.status, 'faster', vl001.message);
    assert.ok(vl001.gain.ratio > 5 && vl001.gain.low > 1);
    assert.ok(q738.indexes.some((i: { gain?: { verdict: string } }) => i.gain?.verdict === 'faster'));
    assert.equal(q738.faster_predictions.of, 2);
    assert.ok(q738.faster_predictions.files >= 1, JSON.stringify(q738.faster_predictions));
    assert.ok(q738.faster_predictions.sources.every((s: { ratio: number }) => s.ratio >= 2));
    assert.deepEqual(audit.prediction_files, [report, files.candidates[0]]);
    assert.equal(audit.entries.length, 3);
    for (const e of audit.entries)
      assert.equal(e.reasons.length > 0, audit.ranked.includes(e) || audit.ranked.some((r: { index: number }) => r.index === e.index));
    assert.match(fs.readFileSync(html, 'utf8'), /<table id="audit" data-filterable>/);
    assert.equal(sha256(path.join(DB_ROOT, 'superhero', 'superhero.sqlite')), before, 'the database is never modified');
  });

  it('--scales: how the gold grows on scaled copies; --no-measure: plans and advice only', () => {
    const files = subset(tempDir(), [717]);
    const json = path.join(dir, 'scales.json');
    const cache = tempDir('ves-lens-audit-cache-');
    const result = run(
      ['audit', '--questions', files.questions, '--db-root', DB_ROOT, '--scales', '1,3', '--no-measure', '--json', json, '--no-progress'],
      { VES_LENS_CACHE: cache },
    );
    assert.equal(result.status, 0, result.stderr);
    const [entry] = read(json).entries;
    assert.deepEqual(Object.keys(entry.growth.by_scale), ['1', '3']);
    assert.ok(entry.growth.by_scale['3'] > 1, 'three times the rows take longer');
    assert.equal(typeof entry.growth.exponent, 'number');
    assert.match(entry.growth.verdict, /×3/);
    assert.ok(
      entry.indexes.every((i: { gain?: unknown }) => i.gain === undefined),
      'not measured',
    );
    const bad = run(['audit', '--questions', files.questions, '--db-root', DB_ROOT, '--predictions', files.questions]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /questions\.json/);
  });

  it('a gold whose database is missing is not audited; a small index gain is not flagged, with the threshold said', () => {
    // 747: its full_name index is measurably but only ~1.2× faster; 1471: its database is not among the shared ones.
    const files = subset(tempDir(), [747, 1471]);
    const json = path.join(dir, 'unrun.json');
    const html = path.join(dir, 'unrun.html');
    const result = run(['audit', '--questions', files.questions, '--db-root', DB_ROOT, '--json', json, '--html', html, '--no-progress']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^1 gold SQL audited, 1 not audited \(database missing\): 0 fail, /);
    assert.match(result.stdout, / an index that makes them at least 2× as fast \(the whole measured interval\)/);
    assert.match(result.stdout, /not audited, database missing: \w+ \(unrun, not clean\)/);
    const audit = read(json);
    assert.deepEqual(audit.counts, { total: 2, audited: 1, not_audited: { database_missing: 1 } });
    assert.equal(audit.index_gain_factor, 2);
    const [q747, q1471] = audit.entries;
    assert.equal(q1471.status, 'skipped');
    assert.equal(q1471.not_audited, 'database_missing');
    assert.ok(!audit.ranked.some((e: { question_id: number }) => e.question_id === 747), 'a 1.2× index is not worth another look');
    assert.ok(
      q747.indexes.every((i: { gain?: { low: number } }) => !i.gain || i.gain.low < 2),
      'the measured gain is kept in the entry',
    );
    const page = fs.readFileSync(html, 'utf8');
    assert.match(page, /2 gold SQL: 1 audited and 1 not audited \(database missing\)/);
    assert.match(page, /not audited: database missing/);
  });
});
