// A broken database file is diagnosed like a locked one (issue 30): a ZIP archive named .sqlite and a copy cut short
// are named, their questions are not scored (never 0), and the run says its scores are not comparable; on eval,
// judge and audit as users run them, beside a healthy database whose questions are scored as usual.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT, runCli, runCliAsync, SAMPLE_SUPERHERO, tempDir } from '../helpers';
import { FakeChatServer, proverReply, roleOf, startChatServer } from '../fakeChatServer';

const SAMPLE = path.join(REPO_ROOT, 'sample');
const PREDICTIONS = path.join(SAMPLE, 'predict_gpt-4_superhero.json');

/** Breaks a database file the ways a download or a copy does. */
const BREAKS: Record<string, (file: string) => void> = {
  'a ZIP archive named .sqlite': (file) => {
    const zip = `${file}.zip`;
    const made = spawnSync('python3', [
      '-c',
      'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").write(sys.argv[2], "superhero.sqlite")',
      zip,
      SAMPLE_SUPERHERO,
    ]);
    assert.equal(made.status, 0, String(made.stderr));
    fs.renameSync(zip, file);
  },
  'a copy cut short': (file) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 3)),
};

/**
 * A --db-root with the real superhero database and a broken copy of it under the name `broken`, and a question file
 * of four superhero questions, two of them asked of `broken`.
 */
function brokenRoot(breakIt: (file: string) => void): { root: string; questions: string; work: string } {
  const work = tempDir('ves-lens-broken-');
  const root = path.join(work, 'db');
  for (const name of ['superhero', 'broken']) {
    fs.mkdirSync(path.join(root, name), { recursive: true });
    fs.copyFileSync(SAMPLE_SUPERHERO, path.join(root, name, `${name}.sqlite`));
  }
  breakIt(path.join(root, 'broken', 'broken.sqlite'));
  const sample = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, 4);
  for (const question of sample.slice(2)) question.db_id = 'broken';
  const questions = path.join(work, 'questions.json');
  fs.writeFileSync(questions, JSON.stringify(sample));
  return { root, questions, work };
}

describe('a broken database file is not comparable, named, never scored 0', () => {
  let server: FakeChatServer;
  before(async () => {
    server = await startChatServer((request) => ({ content: roleOf(request) === 'prover' ? proverReply(true) : 'I uphold it.' }));
  });
  after(() => server.close());

  for (const [kind, breakIt] of Object.entries(BREAKS)) {
    it(`eval: ${kind}`, () => {
      const { root, questions, work } = brokenRoot(breakIt);
      const out = path.join(work, 'eval.json');
      const run = runCli([
        'eval',
        '--questions',
        questions,
        '--predictions',
        PREDICTIONS,
        '--db-root',
        root,
        '--metrics',
        'ex',
        '--json',
        out,
        '--no-progress',
      ]);
      assert.equal(run.status, 0, run.stderr);
      const report = JSON.parse(fs.readFileSync(out, 'utf8'));
      const outcomes = report.questions.map((q: { db_id: string; outcome: string }) => [q.db_id, q.outcome]);
      assert.deepEqual(outcomes.slice(2), [
        ['broken', 'skipped'],
        ['broken', 'skipped'],
      ]);
      assert.ok(outcomes.slice(0, 2).every(([, outcome]: string[]) => outcome !== 'skipped' && outcome !== 'gold error'));
      assert.equal(report.summary.total.count, 2, 'only the healthy database is scored');
      const headline = report.headline_problems.find((p: string) => p.includes('broken.sqlite'));
      assert.match(headline, /2 questions skipped, not scored: .*(ZIP archive|cut short).*not comparable/);
      assert.match(run.stderr + run.stdout, /broken\.sqlite.*not comparable/);
      assert.doesNotMatch(run.stderr + run.stdout, /gold error/);
    });

    it(`judge: ${kind}`, async () => {
      const { root, questions, work } = brokenRoot(breakIt);
      const out = path.join(work, 'judge.json');
      const run = await runCliAsync([
        'judge',
        '--questions',
        questions,
        '--predictions',
        PREDICTIONS,
        '--db-root',
        root,
        '--endpoint',
        server.url,
        '--model',
        'm',
        '--method',
        'prover-only',
        '--no-cache',
        '--no-progress',
        '--json',
        out,
      ]);
      assert.equal(run.status, 0, run.stderr);
      const report = JSON.parse(fs.readFileSync(out, 'utf8'));
      assert.equal(report.summary.skipped, 2);
      assert.deepEqual(
        report.questions.slice(2).map((q: { outcome: string; judge: unknown }) => [q.outcome, q.judge]),
        [
          ['skipped', null],
          ['skipped', null],
        ],
      );
      assert.ok(
        report.headline_problems.some((p: string) => /broken\.sqlite.*not comparable|not comparable/.test(p)),
        JSON.stringify(report.headline_problems),
      );
    });

    it(`audit: ${kind}`, () => {
      const { root, questions, work } = brokenRoot(breakIt);
      const out = path.join(work, 'audit.json');
      const run = runCli(['audit', '--questions', questions, '--db-root', root, '--no-measure', '--no-progress', '--json', out], {
        timeout: 120_000,
      });
      assert.equal(run.status, 0, run.stderr);
      const report = JSON.parse(fs.readFileSync(out, 'utf8'));
      const broken = report.entries.filter((e: { db_id: string }) => e.db_id === 'broken');
      assert.equal(broken.length, 2);
      for (const entry of broken) {
        assert.equal(entry.not_audited, 'database_unreadable');
        assert.match(entry.error, /broken\.sqlite: (a ZIP archive|cut short)/);
      }
      assert.match(run.stderr + run.stdout, /broken\.sqlite.*not comparable/);
    });
  }
});
