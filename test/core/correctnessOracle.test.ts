// audit --correctness against an independent oracle (issue 19, done-when 1): every gold of the shared databases whose
// result changes when SQLite scans unordered rows in reverse is flagged with its kind, on mini-dev and on BIRD dev
// 2023. The oracle (test/oracles/order_dependence.py) is Python's sqlite3 alone; VES Lens must agree with it both
// ways: each gold it flags from the reversed run is one the oracle flags, and each gold the oracle flags is flagged,
// as float summation order exactly when only float digits changed.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { auditGold, goldItems, GoldAuditEntry } from '../../src/core/audit/goldAudit';
import { REVERSED_CHECK } from '../../src/core/audit/correctness/checkCorrectness';
import { CorrectnessFinding, ORDER_DEPENDENT_KINDS } from '../../src/core/audit/correctness/kinds';
import { loadGold } from '../../src/core/bird/gold';
import { loadQuestions } from '../../src/core/bird/questions';
import { BIRD_DATA, birdDataMissing, REPO_ROOT } from '../helpers';

const DB_ROOT = path.join(BIRD_DATA, 'databases');
const SHARED = new Set(['student_club', 'superhero', 'toxicology']);

interface OracleFlag {
  index: number;
  db_id: string;
  float_only: boolean;
}

function oracle(questions: string, gold: string): OracleFlag[] {
  const script = path.join(REPO_ROOT, 'test', 'oracles', 'order_dependence.py');
  const run = spawnSync('python3', [script, questions, gold, DB_ROOT], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as OracleFlag[];
}

/** The finding the reversed run made (its own, or merged into a probe's finding of the same kind). */
const reversedFinding = (entry: GoldAuditEntry): CorrectnessFinding | undefined =>
  entry.correctness?.find((f) => f.evidence.check === REVERSED_CHECK || f.evidence.reversed_scan?.check === REVERSED_CHECK);

const FILES = [
  { name: 'mini-dev', questions: 'mini_dev_sqlite.v1-2024.json', gold: 'mini_dev_sqlite_gold.v1-2024.sql' },
  { name: 'BIRD dev 2023', questions: 'dev.damo-2023.json', gold: 'dev_gold.damo-2023.sql' },
];

describe('audit --correctness: row-order and float-order dependence against a Python oracle', { skip: birdDataMissing() }, () => {
  for (const file of FILES) {
    it(`flags every gold the oracle flags, with its kind, and no other from the reversed run (${file.name})`, async () => {
      const questionsFile = path.join(BIRD_DATA, 'questions', file.questions);
      const goldFile = path.join(BIRD_DATA, 'questions', file.gold);
      const expected = oracle(questionsFile, goldFile);
      assert.ok(expected.length > 0, 'the oracle finds order-dependent gold on the shared databases');
      const items = goldItems(loadQuestions(questionsFile).questions, loadGold(goldFile)).filter((i) => SHARED.has(i.question.dbId));
      const audit = await auditGold(items, { dbRoot: DB_ROOT, timeoutMs: 30_000, maxRows: 100_000, measure: false, correctness: true });
      const byIndex = new Map(audit.entries.map((e) => [e.index, e]));

      for (const flag of expected) {
        const entry = byIndex.get(flag.index)!;
        const finding = reversedFinding(entry);
        assert.ok(finding, `gold ${flag.index} (${flag.db_id}) changes with the row order but is not flagged: ${entry.gold_sql}`);
        if (flag.float_only) assert.equal(finding.kind, 'float_summation_order', `gold ${flag.index}: only float digits change`);
        else assert.ok(ORDER_DEPENDENT_KINDS.has(finding.kind), `gold ${flag.index}: ${finding.kind} is not a row-order kind`);
        assert.ok(audit.ranked.includes(entry), `gold ${flag.index} is ranked`);
      }
      const flaggedHere = audit.entries.filter((e) => reversedFinding(e)).map((e) => e.index);
      assert.deepEqual(
        flaggedHere.sort((a, b) => a - b),
        expected.map((f) => f.index).sort((a, b) => a - b),
      );

      // The summary counts them: every oracle gold is order-dependent or fragile.
      const summary = audit.correctness!;
      assert.equal(summary.checked, items.length);
      assert.ok(summary.order_dependent + summary.fragile >= expected.length);
      assert.equal(summary.fragile, audit.entries.filter((e) => e.correctness?.some((f) => f.kind === 'float_summation_order')).length);
    });
  }
});
