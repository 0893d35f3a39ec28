import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT, runCli, runCliAsync, tempDir } from '../helpers';
import { FakeChatServer, proverReply, roleOf, startChatServer } from '../fakeChatServer';
import { copiedRoot, holdExclusive } from '../lockedDatabase';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');

/** The first `n` superhero questions, and one more on a database the root does not hold (toxicology) when `missing`. */
function questionFile(dir: string, n: number, missing = false): string {
  const questions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, n);
  if (missing) questions.push({ ...questions[0], question_id: 99_999, db_id: 'toxicology' });
  const file = path.join(dir, 'questions.json');
  fs.writeFileSync(file, JSON.stringify(questions));
  return file;
}

const audit = (questions: string, dbRoot: string, ...more: string[]) =>
  runCli(['audit', '--questions', questions, '--db-root', dbRoot, '--no-measure', '--no-progress', ...more], { timeout: 120_000 });

describe('audit and judge: a misplaced --db-root and a run that did nothing (issue 20)', () => {
  const dirs: string[] = [];
  const dir = () => {
    const made = tempDir('ves-lens-dbroot-');
    dirs.push(made);
    return made;
  };
  let server: FakeChatServer;
  before(async () => {
    server = await startChatServer((request) => ({ content: roleOf(request) === 'prover' ? proverReply(true) : 'I uphold it.' }));
  });
  after(async () => {
    await server.close();
    dirs.forEach((made) => fs.rmSync(made, { recursive: true, force: true }));
  });

  it('audit, --db-root one folder too deep: the layout named, "nothing was audited", exit 2, the report still written', () => {
    const work = dir();
    const out = path.join(work, 'audit.json');
    const run = audit(questionFile(work, 4), path.join(SAMPLE, 'superhero'), '--json', out);
    assert.equal(run.status, 2, run.stderr);
    assert.match(
      run.stderr,
      /--db-root: found .*superhero\.sqlite, expected .*superhero\/superhero\/superhero\.sqlite: --db-root is one folder too deep/,
    );
    assert.match(run.stderr, /error: nothing was audited: all 4 questions were skipped \(first: database not found: /);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    const report = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(report.counts.audited, 0);
    assert.ok(
      report.problems.some((p: string) => /one folder too deep/.test(p)),
      'the report says why',
    );
  });

  it('audit, an empty --db-root: said for what it is, exit 2', () => {
    const work = dir();
    const empty = path.join(work, 'databases');
    fs.mkdirSync(empty);
    const run = audit(questionFile(work, 2), empty);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /--db-root: the folder is empty \(expected .*superhero\/superhero\.sqlite, one folder per db_id\)/);
    assert.match(run.stderr, /error: nothing was audited: all 2 questions were skipped/);
  });

  it('audit, the right --db-root with one database missing: no --db-root problem, exit 0', () => {
    const work = dir();
    const run = audit(questionFile(work, 2, true), SAMPLE, '--json', path.join(work, 'audit.json'));
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr + run.stdout, /--db-root|nothing was audited/);
    const report = JSON.parse(fs.readFileSync(path.join(work, 'audit.json'), 'utf8'));
    assert.equal(report.counts.audited, 2, 'the two superhero gold SQL were audited');
  });

  it('judge, --db-root one folder too deep: the layout named at the top, no model call, "nothing was judged", exit 2', async () => {
    const work = dir();
    const out = path.join(work, 'judge.json');
    const before = server.requests.length;
    const run = await runCliAsync(judgeArgs(server.url, questionFile(work, 3), path.join(SAMPLE, 'superhero'), out));
    assert.equal(run.status, 2, run.stderr);
    const [header] = run.stderr.split('┌');
    assert.match(header, /--db-root is one folder too deep/, 'said before the run, not only after');
    assert.match(run.stderr, /error: nothing was judged: all 3 questions were skipped \(first: database not found: /);
    assert.equal(server.requests.length, before, 'the endpoint was never called');
    const report = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(report.summary.skipped, 3);
    assert.ok(report.headline_problems.some((p: string) => /one folder too deep/.test(p)));
  });

  it('judge, the right --db-root with one database missing: the others judged, exit 0', async () => {
    const work = dir();
    const out = path.join(work, 'judge.json');
    const run = await runCliAsync(judgeArgs(server.url, questionFile(work, 2, true), SAMPLE, out));
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /--db-root|nothing was judged/);
    const report = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(report.summary.skipped, 1);
    assert.equal(report.questions.filter((q: { judge: unknown }) => q.judge !== null).length, 2);
  });

  it('judge, a database another process holds locked: "locked" questions scored 0 without a call, a headline problem', async () => {
    const root = copiedRoot('ves-lens-judge-busy-');
    dirs.push(root);
    const locker = await holdExclusive(path.join(root, 'superhero', 'superhero.sqlite'), 120);
    try {
      const work = dir();
      const out = path.join(work, 'judge.json');
      const before = server.requests.length;
      const run = await runCliAsync([...judgeArgs(server.url, questionFile(work, 2), root, out), '--busy-timeout', '0.3']);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(server.requests.length, before, 'nothing to ask the model about');
      const report = JSON.parse(fs.readFileSync(out, 'utf8'));
      assert.deepEqual(
        report.questions.map((q: { outcome: string; judge: { score: number } }) => [q.outcome, q.judge.score]),
        [
          ['locked', 0],
          ['locked', 0],
        ],
      );
      assert.ok(
        report.headline_problems.some((p: string) => /held this database locked past the busy timeout: 2 questions scored 0/.test(p)),
      );
      assert.match(run.stdout, /held this database locked past the busy timeout/);
    } finally {
      locker.kill();
    }
  });
});

function judgeArgs(endpoint: string, questions: string, dbRoot: string, out: string): string[] {
  return [
    'judge',
    '--questions',
    questions,
    '--predictions',
    PREDICTIONS,
    '--db-root',
    dbRoot,
    '--endpoint',
    endpoint,
    '--model',
    'test-model',
    '--method',
    'prover-only',
    '--no-cache',
    '--no-progress',
    '--json',
    out,
  ];
}
