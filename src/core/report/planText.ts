import pc from 'picocolors';
import { PlanDifference } from '../plan/comparePlans';
import { QuestionResult } from '../eval/types';
import { CostedNode, costliestStep, PlanCostPair, selfWork, StepMeasurement } from '../plan/cost';
import { ExplainedPlan } from '../plan/explain';
import { compactNumber, counted, millisecondsText, ratioText } from '../text/numberText';
import { plainText } from '../text/terminalText';

// Re-exported: the CLI, hover and audit read it from here.
export { compactNumber } from '../text/numberText';

/** A planner's cost as EXPLAIN prints it (two decimals), compact when large. */
export function plannerCostText(cost: number): string {
  return cost >= 1e6 ? compactNumber(cost) : cost.toFixed(2);
}

/** What EXPLAIN ANALYZE measured of a step, in one line; a misestimate of rows from MISESTIMATE_FLAG× on is flagged. */
export function measurementText(m: StepMeasurement): string {
  if (m.loops === 0) return 'never executed';
  const parts = [
    `actual ${compactNumber(m.rows)} row${m.rows === 1 ? '' : 's'}${m.loops > 1 ? ` × ${compactNumber(m.loops)} loops` : ''}`,
    `${millisecondsText(m.totalMs)} ms (self ${millisecondsText(m.selfMs)} ms)`,
  ];
  if (m.hitBlocks !== undefined || m.readBlocks !== undefined)
    parts.push(`buffers ${compactNumber(m.hitBlocks ?? 0)} hit, ${compactNumber(m.readBlocks ?? 0)} read`);
  if (m.misestimated) parts.push(`rows misestimated ${ratioText(m.misestimate)}× (${m.direction}estimated)`);
  return parts.join(' · ');
}

/** A step of a planner's plan: its table's size, rule cost, the planner's rows and cost (its own share of the plan's). */
function plannedAnnotation(node: CostedNode, planCost: number): string {
  const parts: string[] = [];
  if (node.rowCount !== undefined) parts.push(`${compactNumber(node.rowCount)} row${node.rowCount === 1 ? '' : 's'} in table`);
  if (node.ruleCost) parts.push(`+${node.ruleCost}`);
  if (node.estimatedRows !== undefined) parts.push(`est. ${compactNumber(node.estimatedRows)} row${node.estimatedRows === 1 ? '' : 's'}`);
  if (node.totalCost !== undefined) {
    const own = selfWork(node);
    parts.push(
      `cost ${plannerCostText(node.totalCost)} (self ${plannerCostText(own)}, ${Math.round((100 * own) / Math.max(planCost, 1e-9))} %)`,
    );
  }
  if (node.filter)
    parts.push(`filter ${node.filter}${node.rowsRemovedByFilter ? `, ${compactNumber(node.rowsRemovedByFilter)} removed` : ''}`);
  const measured = node.measured ? `  ${measurementText(node.measured)}` : '';
  const flagged = node.measured?.misestimated;
  return (parts.length ? pc.dim(`  [${parts.join(' · ')}]`) : '') + (flagged ? pc.red(measured) : pc.dim(measured));
}

function annotation(node: CostedNode): string {
  const parts: string[] = [];
  if (node.realTable && node.realTable.toLowerCase() !== (node.table ?? '').toLowerCase()) parts.push(node.realTable);
  if (node.rowCount !== undefined) parts.push(`${compactNumber(node.rowCount)} row${node.rowCount === 1 ? '' : 's'}`);
  if (node.ruleCost) parts.push(`+${node.ruleCost}`);
  if (node.work >= 1) parts.push(`~${compactNumber(node.work)} visits${node.loops > 1 ? ` (${compactNumber(node.loops)} loops)` : ''}`);
  return parts.length ? pc.dim(`  [${parts.join(' · ')}]`) : '';
}

function colourDetail(node: CostedNode): string {
  if (node.kind === 'scan' || node.kind === 'scan-subquery') return pc.yellow(node.detail);
  if (node.kind === 'temp-btree' || (node.kind === 'subquery' && node.correlated) || node.automatic) return pc.red(node.detail);
  if (node.kind === 'search') return pc.green(node.detail);
  if (node.kind === 'unknown') return pc.magenta(node.detail);
  return node.detail;
}

/** A plan's totals: rule cost and row visits (SQLite); the planner's cost, and what ANALYZE measured (PostgreSQL). */
export function planTotalsText(plan: ExplainedPlan): string {
  if (plan.cost.totalCost === undefined) return `rule cost ${plan.cost.rule} · ~${compactNumber(plan.cost.work)} row visits`;
  const totals = [`planner cost ${plannerCostText(plan.cost.totalCost)}`, `rule cost ${plan.cost.rule}`];
  if (plan.measured?.executionMs !== undefined)
    totals.push(
      `ran in ${millisecondsText(plan.measured.executionMs)} ms${plan.measured.planningMs !== undefined ? ` (planning ${millisecondsText(plan.measured.planningMs)} ms)` : ''}`,
    );
  return totals.join(' · ');
}

/** The annotated tree, one line a step, in the shape of the sqlite3 shell's plan; a planner's plan marks its costliest step. */
export function planLines(plan: ExplainedPlan): string[] {
  if (plan.error) return [pc.red(`no plan: ${plan.error}`)];
  const lines = [`${pc.bold('QUERY PLAN')}  ${pc.dim(planTotalsText(plan))}`];
  const planned = plan.cost.totalCost !== undefined;
  const costliest = planned ? costliestStep(plan.nodes) : undefined;
  const walk = (nodes: CostedNode[], prefix: string) => {
    nodes.forEach((node, i) => {
      const last = i === nodes.length - 1;
      const note = planned ? plannedAnnotation(node, plan.cost.work) : annotation(node);
      lines.push(`${prefix}${last ? '`--' : '|--'}${colourDetail(node)}${node === costliest ? pc.red('  ← costliest') : ''}${note}`);
      walk(node.children, prefix + (last ? '   ' : '|  '));
    });
  };
  walk(plan.nodes, '');
  return lines;
}

const visibleLength = (text: string) => plainText(text).length;

/** Two blocks of lines next to each other, when the terminal is wide enough; one under the other otherwise. */
export function sideBySide(
  left: string[],
  right: string[],
  leftTitle: string,
  rightTitle: string,
  width = process.stdout.columns ?? 160,
): string[] {
  const leftWidth = Math.max(visibleLength(leftTitle), ...left.map(visibleLength));
  const rightWidth = Math.max(visibleLength(rightTitle), ...right.map(visibleLength));
  if (leftWidth + rightWidth + 3 > width) return [pc.bold(leftTitle), ...left, '', pc.bold(rightTitle), ...right];
  const pad = (text: string) => text + ' '.repeat(leftWidth - visibleLength(text));
  const out = [`${pad(pc.bold(leftTitle))} │ ${pc.bold(rightTitle)}`];
  for (let i = 0; i < Math.max(left.length, right.length); i++) out.push(`${pad(left[i] ?? '')} │ ${right[i] ?? ''}`);
  return out;
}

export function differenceLines(differences: readonly PlanDifference[]): string[] {
  if (differences.length === 0) return [pc.dim('the two plans take the same steps')];
  return differences.map((d) => `${d.direction > 0 ? pc.green('+') : d.direction < 0 ? pc.red('-') : pc.dim('~')} ${d.message}`);
}

/** A question's result with the plan costs eval attached (`plan_cost`). */
type CostedResult = QuestionResult & { plan_cost?: PlanCostPair };

const geometricMean = (values: readonly number[]) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);

/** Questions listed where the planner's verdict and the clock's disagree. */
const DISAGREEMENTS_LISTED = 10;

/**
 * `eval --efficiency plan-cost` in the terminal: BIRD-Critic's deterministic verdicts over the correct
 * predictions (the prediction's Total Cost below the gold's), the cost ratio beside the timed one, and the
 * questions where the planner and the clock disagree (the timed interval on the other side of 1).
 */
export function plannerCostLines(results: readonly CostedResult[]): string[] {
  const compared = results.filter((r) => r.outcome === 'correct' && r.plan_cost?.pred_cheaper != null);
  const head = pc.bold("plan cost (BIRD-Critic: EXPLAIN (FORMAT JSON) Total Cost, the prediction's below the gold's; deterministic)");
  if (compared.length === 0) return [head, pc.dim('no correct prediction with both plans: nothing to compare')];
  const cheaper = compared.filter((r) => r.plan_cost!.pred_cheaper === 1).length;
  const equal = compared.filter((r) => r.plan_cost!.gold!.totalCost === r.plan_cost!.pred!.totalCost).length;
  const ratios = compared.map((r) => r.plan_cost!.total_cost_ratio).filter((x): x is number => x !== null && x !== undefined && x > 0);
  const timed = compared.map((r) => r.rves_time_ratio ?? r.time_ratio).filter((x): x is number => x !== null && x > 0);
  const lines = [
    head,
    `  ${counted(compared.length, 'correct prediction')}: cheaper plan ${cheaper}, costlier ${compared.length - cheaper - equal}, the same cost ${equal}` +
      ` (BIRD-Critic scores ${cheaper} of ${compared.length}: ${((100 * cheaper) / compared.length).toFixed(1)} %)`,
    `  cost ratio gold / prediction: geometric mean ${ratioText(ratios.length ? geometricMean(ratios) : null)}` +
      (timed.length ? `; timed ratio: ${ratioText(geometricMean(timed))} over ${counted(timed.length, 'timed pair')}` : ''),
  ];
  const disagreeing = compared.filter((r) => {
    const interval = r.rves_time_ratio_interval ?? r.time_ratio_interval;
    const ratio = r.plan_cost!.total_cost_ratio;
    if (!interval || ratio === null || ratio === undefined || ratio === 1) return false;
    return ratio > 1 ? interval[1] < 1 : interval[0] > 1;
  });
  if (disagreeing.length) {
    lines.push(`  the planner and the clock disagree on ${counted(disagreeing.length, 'question')}:`);
    for (const r of disagreeing.slice(0, DISAGREEMENTS_LISTED)) {
      const interval = (r.rves_time_ratio_interval ?? r.time_ratio_interval)!;
      lines.push(
        pc.dim(
          `    ${r.question_id}: cost ${plannerCostText(r.plan_cost!.gold!.totalCost!)} → ${plannerCostText(r.plan_cost!.pred!.totalCost!)} (ratio ${ratioText(r.plan_cost!.total_cost_ratio)}), timed ratio ${ratioText(r.rves_time_ratio ?? r.time_ratio)} (${ratioText(interval[0])}–${ratioText(interval[1])})`,
        ),
      );
    }
    if (disagreeing.length > DISAGREEMENTS_LISTED)
      lines.push(pc.dim(`    … ${disagreeing.length - DISAGREEMENTS_LISTED} more in the JSON (plan_cost)`));
  }
  return lines;
}
