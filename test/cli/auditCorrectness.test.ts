// `ves-lens audit --correctness` as a user runs it: mini-dev's gold on the three shared databases with the four
// official prediction files, in a real process. Every entry carries index and question_id, every audited gold its
// correctness findings with evidence; the order-dependent and fragile gold rank before the efficiency findings; the
// summary counts them per kind; the terminal, the JSON and the HTML page show them.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { BIRD_DATA, birdDataMissing, runCli, tempDir } from '../helpers';
import { MINIDEV_INPUTS } from '../evalReports';

interface Finding {
  kind: string;
  detail: string;
  evidence: {
    check: string;
    rows_as_written?: unknown[][];
    rows_of_check?: unknown[][];
    difference?: { absolute: number; relative: number };
    files?: string[];
    of_files?: number;
  };
}
interface Entry {
  index: number;
  question_id: number;
  status: string;
  reasons: string[];
  correctness?: Finding[];
}
interface Audit {
  inputs: { correctness: boolean };
  entries: Entry[];
  ranked: Entry[];
  correctness: { checked: number; flagged: number; order_dependent: number; fragile: number; by_kind: Record<string, number> };
}

const ORDER_KINDS = ['limit_without_order_by', 'limit_through_tie', 'bare_column_with_aggregate', 'row_order'];

describe('ves-lens audit --correctness on mini-dev', { skip: birdDataMissing() }, () => {
  const dir = tempDir();
  const json = path.join(dir, 'audit.json');
  const html = path.join(dir, 'audit.html');
  let run: ReturnType<typeof runCli>;
  let audit: Audit;

  before(() => {
    const predictions = path.join(BIRD_DATA, 'predictions', 'minidev-official');
    run = runCli(
      [
        'audit',
        ...MINIDEV_INPUTS,
        '--no-measure',
        '--correctness',
        '--predictions',
        ...fs.readdirSync(predictions).map((f) => path.join(predictions, f)),
        '--json',
        json,
        '--html',
        html,
        '--top',
        '5',
        '--no-progress',
      ],
      { timeout: 180_000 },
    );
    audit = JSON.parse(fs.readFileSync(json, 'utf8')) as Audit;
  });

  it('exits 0 and says per kind how many gold depend on the row order or are fragile', () => {
    assert.equal(run.status, 0, run.stderr);
    assert.equal(audit.inputs.correctness, true);
    const { correctness } = audit;
    assert.equal(correctness.checked, 140, 'the 140 gold of the shared databases');
    const withKind = (kinds: string[]) => audit.entries.filter((e) => e.correctness?.some((f) => kinds.includes(f.kind))).length;
    assert.equal(correctness.order_dependent, withKind(ORDER_KINDS));
    assert.equal(correctness.fragile, withKind(['float_summation_order']));
    for (const [kind, count] of Object.entries(correctness.by_kind)) assert.equal(count, withKind([kind]), kind);
    assert.match(run.stdout, new RegExp(`correctness \\(140 gold checked\\): ${correctness.order_dependent} depend on the row order`));
  });

  it('puts index and question_id on every entry, correctness on every gold that ran, with evidence', () => {
    for (const entry of audit.entries) {
      assert.equal(typeof entry.index, 'number');
      assert.ok(entry.question_id !== undefined);
      assert.equal(Array.isArray(entry.correctness), entry.status === 'ok', `question ${entry.question_id} (${entry.status})`);
    }
    const q751 = audit.entries.find((e) => e.question_id === 751)!;
    const limit = q751.correctness!.find((f) => f.kind === 'limit_without_order_by')!;
    assert.equal(limit.evidence.rows_as_written?.length, 5, 'the five powers it keeps');
    assert.ok(limit.evidence.rows_of_check?.length, 'powers it leaves out');
    const q1361 = audit.entries.find((e) => e.question_id === 1361)!;
    const sum = q1361.correctness!.find((f) => f.kind === 'float_summation_order')!;
    assert.ok(sum.evidence.difference!.absolute > 0 && sum.evidence.difference!.absolute < 1e-9, 'only the last digits differ');
    assert.match(sum.detail, /600\.11/);
  });

  it('finds gold that most prediction files agree against, naming the files', () => {
    const against = audit.entries.flatMap((e) => e.correctness?.filter((f) => f.kind === 'predictions_disagree') ?? []);
    assert.ok(against.length > 0);
    for (const finding of against) {
      assert.equal(finding.evidence.of_files, 4);
      assert.ok(finding.evidence.files!.length >= 3, 'more than half of the four files');
    }
  });

  it('ranks every correctness finding before the efficiency findings', () => {
    const hasCorrectness = (e: Entry) => (e.correctness?.length ?? 0) > 0;
    const lastCorrectness = audit.ranked.map(hasCorrectness).lastIndexOf(true);
    const firstOther = audit.ranked.findIndex((e) => !hasCorrectness(e));
    assert.ok(lastCorrectness >= 0);
    if (firstOther >= 0) assert.ok(firstOther > lastCorrectness, 'a gold without a correctness finding ranks after them all');
    const top = audit.ranked[0];
    assert.ok(
      top.correctness!.some((f) => ORDER_KINDS.includes(f.kind)),
      `question ${top.question_id} heads the list`,
    );
    assert.match(top.reasons[0], /^(LIMIT|bare column|depends on the row order)/);
  });

  it('shows the findings and their evidence in the HTML page', () => {
    const page = fs.readFileSync(html, 'utf8');
    assert.match(page, /data-kind="[^"]*limit_without_order_by/);
    assert.match(page, /evidence: LIMIT without ORDER BY/);
    assert.match(page, /evidence: float summation order \(EX-fragile\)/);
    assert.match(page, /correctness \(140 gold checked\)/);
  });
});
