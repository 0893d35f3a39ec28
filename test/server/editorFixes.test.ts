// Issue #22's editor items, driven in-process (src/server/service.ts: no connection) with in-memory documents.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DiagnosticSeverity } from 'vscode-languageserver-types';
import { ReportRow, VesLensErrorCodes } from '../../src/shared/protocol';
import { VesLensService } from '../../src/server/service';
import { DEFAULT_SETTINGS } from '../../src/shared/settings';
import { StatementProblemCodes } from '../../src/server/hints/statementProblems';
import { caseOrSpaceLiteral, scoreExplanations } from '../../src/app/scoreExplanations';
import { refuterReply, startChatServer } from '../fakeChatServer';
import { REPO_ROOT, tempDir, testCacheHome } from '../helpers';
import { InMemoryDocuments } from './inMemoryDocuments';

// Evaluate keeps gold results (core/eval/goldResultCache.ts): in this process's own cache folder, not ~/.cache.
process.env.XDG_CACHE_HOME = testCacheHome();

const SAMPLE = path.join(REPO_ROOT, 'sample');
const dataset = {
  questionsFile: path.join(SAMPLE, 'mini_dev_superhero.json'),
  goldFile: path.join(SAMPLE, 'mini_dev_superhero_gold.sql'),
  dbRoot: SAMPLE,
};

const GOLD_717 =
  'SELECT T3.power_name FROM superhero AS T1 INNER JOIN hero_power AS T2 ON T1.id = T2.hero_id ' +
  "INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T1.superhero_name = '3-D Man'";

describe('editor fixes (issue #22)', () => {
  const documents = new InMemoryDocuments();
  const service = new VesLensService({ documents, log: () => {}, docsRoot: path.join(REPO_ROOT, 'docs', 'rules') });
  before(() => service.initialize({ dataset, trusted: true }));
  after(() => service.dispose());

  describe('an unknown question id', () => {
    it('says the question is not in the attached question file, naming the file, rather than "names no database"', async () => {
      const document = documents.open('file:///ws/unknown.sql', 'sql', '-- bird: 99999\nSELECT 1;\n');
      const said = /no question 99999 in the attached question file \(.*mini_dev_superhero\.json\)/;
      await assert.rejects(service.explain({ uri: document.uri, offset: document.getText().indexOf('SELECT') }), said);
      await assert.rejects(service.score({ uri: document.uri, offset: 20, questionId: 99999 }), said);
    });
  });

  describe('diagnostics of a .sql file', () => {
    it("an error at the statement with SQLite's message for a syntax error", async () => {
      // Each statement is bound by the comments right above it (the error needs the database to compile on).
      const text = '-- db: superhero\nSELECT id FROM superhero;\n-- db: superhero\nSELEC id FROM superhero;\n';
      const document = documents.open('file:///ws/syntax.sql', 'sql', text);
      const problems = (await service.diagnostics(document)).filter((d) => d.code === StatementProblemCodes.compileError);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0].severity, DiagnosticSeverity.Error);
      assert.match(problems[0].message, /^SQLite: near "SELEC": syntax error/);
      assert.deepEqual(problems[0].range.start, { line: 3, character: 0 });
      // An unknown column does not compile either; a write is refused when run, never called a syntax error.
      const more = documents.open(
        'file:///ws/syntax2.sql',
        'sql',
        '-- db: superhero\nSELECT nope FROM superhero;\n-- db: superhero\nDELETE FROM superhero;\n',
      );
      const said = (await service.diagnostics(more)).filter((d) => d.code === StatementProblemCodes.compileError).map((d) => d.message);
      assert.deepEqual(said, ['SQLite: no such column: nope']);
    });

    it('a warning at `-- bird:` for an unknown question id, and at `-- db:` for a missing database file', async () => {
      const text = 'SELECT 1;\n-- bird: 99999\nSELECT 2;\n-- db: formula_1\nSELECT * FROM races;\n-- bird: 717\nSELECT 3;\n';
      const document = documents.open('file:///ws/bindings.sql', 'sql', text);
      const diagnostics = await service.diagnostics(document);
      const unknown = diagnostics.filter((d) => d.code === StatementProblemCodes.unknownQuestion);
      assert.equal(unknown.length, 1, JSON.stringify(diagnostics));
      assert.equal(unknown[0].severity, DiagnosticSeverity.Warning);
      assert.deepEqual(unknown[0].range, { start: { line: 1, character: 0 }, end: { line: 1, character: 14 } });
      assert.match(unknown[0].message, /no question 99999 in the attached question file \(.*mini_dev_superhero\.json\)/);
      const missing = diagnostics.filter((d) => d.code === StatementProblemCodes.missingDatabase);
      assert.equal(missing.length, 1, JSON.stringify(diagnostics));
      assert.equal(missing[0].severity, DiagnosticSeverity.Warning);
      assert.equal(missing[0].range.start.line, 3);
      assert.match(missing[0].message, /database formula_1 \(named by `-- db: formula_1`\) is missing: .*formula_1\.sqlite does not exist/);
      // A statement bound to nothing, and one bound to a real question, have nothing to say.
      assert.ok(
        diagnostics.every((d) => d.range.start.line === 1 || d.range.start.line === 3),
        JSON.stringify(diagnostics),
      );
    });

    it('a missing default database is said on the statement it would run on', async () => {
      service.applySettings({ ...DEFAULT_SETTINGS, defaultDatabase: 'formula_1' });
      try {
        const document = documents.open('file:///ws/default.sql', 'sql', 'SELECT * FROM races;\n');
        const [missing] = await service.diagnostics(document);
        assert.equal(missing?.code, StatementProblemCodes.missingDatabase);
        assert.match(missing.message, /formula_1 \(the vesLens\.defaultDatabase setting\) is missing/);
        assert.deepEqual(missing.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 19 } });
      } finally {
        service.applySettings({ ...DEFAULT_SETTINGS });
      }
    });
  });

  describe('timing settings (vesLens.timing.mode, vesLens.timing.iterations)', () => {
    it('Score against gold times with the official loop and its iterations when the settings say so, at once', async () => {
      const sql = `${GOLD_717} ORDER BY 1`;
      const fast = await service.score({ sql, questionId: 717 });
      assert.equal(fast.ex, 1);
      assert.ok(fast.timings.ves, 'timed');
      service.applySettings({ ...DEFAULT_SETTINGS, timingMode: 'official', timingIterations: 3 });
      try {
        const official = await service.score({ sql, questionId: 717 });
        assert.equal(official.ex, 1);
        // The official loop: each query run `iterations` times (outliers past 3 sigma may be dropped).
        assert.ok(
          official.timings.ves && official.timings.ves.runs <= 3 && official.timings.ves.runs >= 1,
          JSON.stringify(official.timings.ves?.runs),
        );
        assert.ok(official.timings.rves && official.timings.rves.runs <= 3, JSON.stringify(official.timings.rves?.runs));
      } finally {
        service.applySettings({ ...DEFAULT_SETTINGS });
      }
    });

    it('Evaluate a Prediction File follows the same settings', async () => {
      service.applySettings({ ...DEFAULT_SETTINGS, timingMode: 'official', timingIterations: 2 });
      try {
        const file = path.join(SAMPLE, 'predict_gpt-4_superhero.json');
        const abort = new AbortController();
        let timed: ReportRow | undefined;
        const run = service.evaluateFile({ predictionsFile: file }, abort.signal, (rows) => {
          timed ??= rows.find((row) => row.timing !== null && row.timing !== 'same-program');
          if (timed) abort.abort();
        });
        const result = await run;
        const row = timed ?? result.questions.find((r) => r.timing !== null && r.timing !== 'same-program');
        assert.ok(row, 'a timed row');
        assert.match(String(row.timing), /^official-/);
        assert.ok(row.runs !== null && row.runs <= 2, String(row.runs));
      } finally {
        service.applySettings({ ...DEFAULT_SETTINGS });
      }
    });
  });

  describe('a hint on a read-only gold (the question document)', () => {
    it('offers "Verify" with copy or open, never "apply", and says why in the diagnostic', async () => {
      const uri = 'ves-lens-question:/superhero/question 730.sql';
      const document = documents.open(uri, 'sql', service.questionDocument(730));
      const hints = (await service.diagnostics(document)).filter((d) => d.data);
      assert.ok(hints.length > 0, "question 730's gold has a hint");
      assert.match(hints[0].message, /this gold is read-only, so the rewrite is copied or opened in a new editor/);
      const titles = (await service.codeActions(document, hints)).map((a) => a.title);
      assert.ok(titles.includes(`Verify the ${hints[0].code} rewrite (read-only gold: copy or open it)`), titles.join(' | '));
      assert.ok(
        titles.every((t) => !/apply/i.test(t)),
        titles.join(' | '),
      );
    });
  });

  describe("the judge's consent", () => {
    // Question 717; a prediction with gold's rows: the Refuter alone is asked (one request).
    const SAME_ROWS =
      'SELECT sp.power_name FROM superpower sp WHERE sp.id IN (SELECT hp.power_id FROM hero_power hp ' +
      "JOIN superhero s ON s.id = hp.hero_id WHERE s.superhero_name = '3-D Man')";
    const asked: string[] = [];
    let allow = false;
    const consenting = new VesLensService({
      documents,
      log: () => {},
      docsRoot: '',
      consent: async ({ url }) => {
        asked.push(url);
        return allow;
      },
    });
    before(() => consenting.initialize({ dataset, trusted: true }));
    after(() => consenting.dispose());

    const judge = async (sql: string, cacheDir?: string) => {
      const chat = await startChatServer(() => ({ content: refuterReply(false) }));
      const model = { provider: 'openai' as const, url: chat.url, model: 'judge-model' };
      try {
        const run = consenting.judge({ sql, questionId: 717, method: 'rose', model, cacheDir, askConsent: true });
        return {
          outcome: await run.then(
            (result) => ({ result }),
            (error: Error) => ({ error }),
          ),
          requests: chat.requests.length,
          url: chat.url,
        };
      } finally {
        await chat.close();
      }
    };

    it('asks nothing when nothing needs judging (the prediction fails: scored 0 without a request)', async () => {
      asked.length = 0;
      const { outcome, requests } = await judge('SELECT nope FROM superhero');
      assert.equal('result' in outcome && outcome.result.judge.score, 0);
      assert.deepEqual([asked.length, requests], [0, 0]);
    });

    it('asks just before the first real request; declined, nothing is sent and the error says so', async () => {
      asked.length = 0;
      allow = false;
      const { outcome, requests, url } = await judge(SAME_ROWS);
      assert.ok('error' in outcome);
      assert.match(outcome.error.message, /not judged: sending to http:\/\/127\.0\.0\.1:\d+\/v1 was not allowed, so nothing was sent/);
      assert.equal((outcome.error as { code?: number }).code, VesLensErrorCodes.consentDeclined);
      assert.deepEqual([asked, requests], [[url], 0]);
    });

    it('asks nothing when every reply is cached', async () => {
      const cacheDir = tempDir('judge-consent-');
      allow = true;
      asked.length = 0;
      const first = await judge(SAME_ROWS, cacheDir);
      assert.deepEqual([asked.length, first.requests], [1, 1]);
      allow = false; // a request now would be refused: the cached reply must need none
      asked.length = 0;
      const again = await judge(SAME_ROWS, cacheDir);
      assert.ok('result' in again.outcome, String('error' in again.outcome && again.outcome.error));
      assert.equal(again.outcome.result.judge.cached_calls, 1);
      assert.deepEqual([asked.length, again.requests], [0, 0]);
    });
  });

  describe("a mismatch by a literal's case or spaces", () => {
    it('the Score panel\'s "why" names the prediction\'s literal that gold spells otherwise', async () => {
      const sql = GOLD_717.replace("'3-D Man'", "'3-d man'");
      const result = await service.score({ sql, questionId: 717, phase: 'correctness' });
      assert.equal(result.outcome, 'mismatch');
      assert.match(
        result.explanations.join('\n'),
        /the prediction's literal '3-d man' is gold's '3-D Man' in another case or with other spaces\. Text compares exactly/,
      );
    });

    it("results that differ only by a value's case point at the literal that gives it", () => {
      const preview = (rows: unknown[][]) => ({ columns: ['power'], rows, rowCount: rows.length, truncated: false });
      const gold = preview([['Stealth'], ['Agility']]);
      const pred = preview([['stealth '], ['Agility']]);
      const found = caseOrSpaceLiteral("SELECT CASE WHEN x THEN 'stealth ' ELSE power END FROM t", gold, pred);
      assert.deepEqual(found, { literal: "'stealth '", predicted: 'stealth ', gold: 'Stealth' });
      const why = scoreExplanations({ outcome: 'mismatch', ex: 0, f1: 0.5 }, gold, pred, {
        pred: "SELECT 'stealth '",
        gold: 'SELECT power FROM t',
      });
      assert.match(
        why.join('\n'),
        /differ only in the case or surrounding spaces of a value, .*literal 'stealth ': it returns "stealth " where gold has "Stealth"/,
      );
      // Other values too, or no literal gives the value: nothing is claimed.
      assert.equal(caseOrSpaceLiteral("SELECT 'stealth '", gold, preview([['stealth '], ['Speed']])), undefined);
      assert.equal(caseOrSpaceLiteral('SELECT lower(power) FROM t', gold, pred), undefined);
    });
  });
});
