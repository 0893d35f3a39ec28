import { sameResultBag, sameResultSet } from '../metrics/executionMatch';
import { Row } from '../db/database';
import { DatabaseConnection } from '../db/engine';
import { PlanNode } from '../db/planTree';
import { dialectOf, readQuery, runnableBody } from '../db/readQuery';
import { DEFAULT_FAST_TIMING, fullRatioOnCopies, measureFast } from '../timing/fast';
import { scaledCopies } from '../scale/scaledCopy';
import { TimingResult } from '../timing/types';
import { describeSpeed, growthVerdict, speedVerdict } from '../timing/verdict';
import { estimateContradicts } from '../plan/comparePlans';
import { Hint, Rewrite } from './types';

export type VerdictStatus =
  | 'faster' // same result, measured faster on a repeatable margin (see timing/verdict.ts)
  | 'slower' // same result, measured slower
  | 'no-difference' // same result, no measurable difference (or one that a repeat measurement did not confirm)
  | 'same-work' // same result and the engine runs both the same way (same program or same plan): not timed
  | 'changes-results' // the rewrite returns another set of rows: never offered as a fix
  | 'failed'; // the original or the rewrite does not run

export interface Verdict {
  status: VerdictStatus;
  /** Same rows as a set (BIRD's EX) and as a bag (duplicates counted). */
  sameSet?: boolean;
  sameBag?: boolean;
  /** t_original / t_rewrite: above 1, the rewrite is faster. */
  speedup?: TimingResult;
  /**
   * A second, independent interleaved measurement, taken when the first said faster or slower: the verdict
   * stands only when this one says the same (one measurement's interval can miss where a repeat run falls).
   */
  repeat?: TimingResult;
  /** The form this verdict is about (of a hint's alternatives, the one measured best). */
  rewrite?: Rewrite;
  /** With scales: t_original / t_rewrite on copies of the database scaled ×N (null where it timed out), and what it says. */
  growth?: { byScale: Record<string, number | null>; verdict: string };
  /**
   * On an engine whose planner costs its plans (PostgreSQL): whether it chose the same plan for both forms (the
   * same operators on the same tables and indexes) and its estimated Total Cost of each.
   */
  planner?: { samePlan: boolean; originalCost: number; rewriteCost: number };
  message: string;
}

/**
 * Runs a hint's original statement and its rewrite on the database: compares their results (as a set, as
 * BIRD does, and as a bag) and, when they agree, measures the speed-up with the fast timing protocol. A hint
 * that proposes several forms (VL002's two COUNT directions) has each verified, and the verdict names the one
 * it measured best: a form is offered as faster only when it was measured faster.
 */
export interface VerifyLimits {
  timeoutMs: number;
  maxRows: number;
  /** Also time a rewrite that returns the same rows on copies of the database scaled by these factors. */
  scales?: readonly number[];
  schemaFile?: string;
}

/**
 * The plan's shape: each step's operator, table, index and how it uses it, depth first (estimates left out). Two
 * forms with the same shape do the same work step by step: SQLite's EXPLAIN QUERY PLAN names the steps, not costs.
 */
function planShape(nodes: readonly PlanNode[]): string {
  return nodes
    .map((node) => {
      const how = [node.covering, node.automatic, node.constraint, node.purpose, node.subqueryType, node.correlated, node.operator];
      return `${node.nodeType ?? node.kind}:${node.table ?? ''}:${node.index ?? ''}:${how.map((x) => x ?? '').join('/')}(${planShape(node.children)})`;
    })
    .join(',');
}

/**
 * How the engine runs both forms, when that settles the speed question without a clock: the same compiled
 * program, or (SQLite, whose plans carry no costs) the same plan step for step. Timing such a pair measures only
 * noise: a verdict from it is one a repeat run takes back (issue 34: COUNT(*) → COUNT(atom.atom_id) "1.33×").
 */
async function sameWorkOf(db: DatabaseConnection, original: string, rewrite: string): Promise<string | undefined> {
  if ((await db.sameWork(original, rewrite)) === 'same') return 'both forms compile to the same program';
  if (db.engine.name !== 'sqlite') return undefined; // a costed planner's same plan may still differ in its estimates
  try {
    const [before, after] = [await db.explainPlan(original), await db.explainPlan(rewrite)];
    if (before.length && planShape(before) === planShape(after)) return `SQLite makes the same plan of both forms (${planSteps(before)})`;
  } catch {
    // a form that does not plan: timed as usual
  }
  return undefined;
}

/** "SCAN atom; SEARCH bond USING INDEX …", for a message. */
function planSteps(nodes: readonly PlanNode[]): string {
  const steps: string[] = [];
  const walk = (list: readonly PlanNode[]) => list.forEach((node) => (steps.push(node.detail), walk(node.children)));
  walk(nodes);
  return steps.length > 3 ? `${steps.slice(0, 3).join('; ')}; …` : steps.join('; ');
}

/** Both forms' plans on an engine whose planner costs them; undefined on one that does not (SQLite) or when either fails to plan. */
async function plannerView(db: DatabaseConnection, original: string, rewrite: string): Promise<Verdict['planner']> {
  try {
    const [before, after] = [await db.explainPlan(original), await db.explainPlan(rewrite)];
    const cost = (nodes: PlanNode[]) => nodes.reduce((sum, node) => sum + (node.totalCost ?? 0), 0);
    if (!before.some((node) => node.totalCost !== undefined)) return undefined;
    return { samePlan: planShape(before) === planShape(after), originalCost: cost(before), rewriteCost: cost(after) };
  } catch {
    return undefined;
  }
}

/**
 * What the planner made of the rewrite, said after the measurement: a rule that does not help this planner says
 * so, and a cost change that points against the measurement is said to disagree with it (the measurement decides).
 */
function plannerText(engine: string, planner: NonNullable<Verdict['planner']>, measured: VerdictStatus): string {
  const speed = measured === 'faster' || measured === 'slower' ? measured : undefined;
  const costs = estimateContradicts(planner.originalCost, planner.rewriteCost, speed)
    ? `planner cost ${planner.originalCost.toFixed(2)} and ${planner.rewriteCost.toFixed(2)}: its estimate disagrees with the measurement, which decides`
    : `planner cost ${planner.originalCost.toFixed(2)} → ${planner.rewriteCost.toFixed(2)}`;
  if (planner.samePlan)
    return `${engine}'s planner makes the same plan of both forms (the same operators on the same tables; ${costs})${measured === 'faster' ? '' : ': this rewrite does not help its planner'}`;
  return `${engine}'s planner makes another plan of the rewrite (${costs})`;
}

export async function verifyHint(db: DatabaseConnection, original: string, hint: Hint, limits: VerifyLimits): Promise<Verdict> {
  if (!hint.rewrite) return { status: 'failed', message: 'no rewrite to verify' };
  const before = await readQuery(db, original, {
    deadline: performance.now() + limits.timeoutMs,
    budgetMs: limits.timeoutMs,
    maxRows: limits.maxRows,
  });
  if (before.status !== 'ok') return { status: 'failed', message: `the original does not run: ${before.message}` };
  const forms = hint.alternatives?.length ? hint.alternatives : [hint.rewrite];
  const verdicts: Verdict[] = [];
  for (const form of forms) verdicts.push({ ...(await verifyRewrite(db, original, before.rows, hint, form, limits)), rewrite: form });
  if (verdicts.length === 1) return verdicts[0];
  const rank = (v: Verdict) =>
    (v.status === 'faster' ? 3 : v.sameSet && (v.speedup || v.status === 'same-work') ? 2 : v.status === 'changes-results' ? 1 : 0) * 1e6 +
    (v.speedup?.ratio ?? (v.status === 'same-work' ? 1 : 0));
  const best = verdicts.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  const others = verdicts.filter((v) => v !== best).map((v) => `${v.rewrite!.text}: ${v.message}`);
  return { ...best, message: `${best.rewrite!.text}: ${best.message}${others.length ? `; also tried ${others.join('; ')}` : ''}` };
}

async function verifyRewrite(
  db: DatabaseConnection,
  original: string,
  beforeRows: Row[],
  hint: Hint,
  rewrite: Rewrite,
  limits: VerifyLimits,
): Promise<Verdict> {
  const after = await readQuery(db, rewrite.statement, {
    deadline: performance.now() + limits.timeoutMs,
    budgetMs: limits.timeoutMs,
    maxRows: limits.maxRows,
  });
  if (after.status !== 'ok') return { status: 'failed', message: `the rewrite does not run: ${after.message}` };
  const set = sameResultSet(after.rows, beforeRows);
  const bagEqual = sameResultBag(after.rows, beforeRows);
  if (hint.kind === 'correctness') {
    // A correctness hint's rewrite is meant to differ exactly when the hazard is real.
    return set
      ? {
          status: 'no-difference',
          sameSet: set,
          sameBag: bagEqual,
          message: 'same rows on this data: the hazard does not bite here, but would with other data',
        }
      : {
          status: 'changes-results',
          sameSet: false,
          sameBag: false,
          message: `confirmed on this data: the original returns ${beforeRows.length} rows, the rewrite ${after.rows.length}`,
        };
  }
  if (!set) {
    return {
      status: 'changes-results',
      sameSet: false,
      sameBag: false,
      message: `the rewrite returns other rows (${after.rows.length} vs ${beforeRows.length}): not offered as a fix`,
    };
  }
  const a = runnableBody(original, dialectOf(db.engine));
  const b = runnableBody(rewrite.statement, dialectOf(db.engine));
  if ('status' in a || 'status' in b)
    return { status: 'failed', sameSet: set, sameBag: bagEqual, message: 'cannot time a refused statement' };
  const same = await sameWorkOf(db, a.body, b.body);
  if (same) {
    const rows = bagEqual ? 'same rows' : 'same set of rows (duplicates differ)';
    return { status: 'same-work', sameSet: set, sameBag: bagEqual, message: `${rows}; same work: ${same}, so not timed` };
  }
  // Full execution is what a person waits for; the ratio is t_original / t_rewrite (above 1: the rewrite is faster).
  const timing = {
    ...DEFAULT_FAST_TIMING,
    quantities: ['full' as const],
    settle: { ratioOf: ['full' as const], bucketOf: [] },
    timeoutMs: limits.timeoutMs,
  };
  const speedup = (await measureFast(db.path, a.body, b.body, timing)).full!;
  const rows = bagEqual ? 'same rows' : 'same set of rows (duplicates differ)';
  const verdict: Verdict = {
    status: speedVerdict(speedup),
    sameSet: set,
    sameBag: bagEqual,
    speedup,
    message: `${rows}; ${describeSpeed(speedup)}`,
  };
  if (verdict.status !== 'no-difference') {
    // A claim must hold on a repeat run: a second interleaved measurement, taken apart from the first, must say it too.
    const repeat = (await measureFast(db.path, a.body, b.body, timing)).full!;
    verdict.repeat = repeat;
    if (speedVerdict(repeat) === verdict.status) verdict.message += `; a repeat measurement agrees: ${repeat.ratio.toFixed(2)}×`;
    else {
      verdict.status = 'no-difference';
      verdict.message = `${rows}; no difference that survives a repeat: ${speedup.ratio.toFixed(2)}× (interval ${speedup.low.toFixed(2)}–${speedup.high.toFixed(2)}×), then ${repeat.ratio.toFixed(2)}× (interval ${repeat.low.toFixed(2)}–${repeat.high.toFixed(2)}×) on a repeat`;
    }
  }
  // A planner that costs its plans says whether the rewrite changed its choice: said beside the measurement, never instead of it.
  const planner = await plannerView(db, a.body, b.body);
  if (planner) {
    verdict.planner = planner;
    const engine = dialectOf(db.engine) === 'postgres' ? 'PostgreSQL' : db.engine.name;
    verdict.message += `; ${plannerText(engine, planner, verdict.status)}`;
  }
  if (limits.scales?.length && db.engine.name === 'sqlite') {
    // How the gain grows with the data: the same pair on scaled copies (a trend, fewer blocks than the verdict).
    const copies = await scaledCopies(db.path, limits.scales, { schemaFile: limits.schemaFile }); // built before timing
    const byScale = await fullRatioOnCopies(a.body, b.body, limits.scales, copies, timing);
    verdict.growth = { byScale, verdict: growthVerdict(byScale, { faster: 'the rewrite', slower: 'the original' }) };
    verdict.message += `; ${verdict.growth.verdict}`;
  }
  return verdict;
}
