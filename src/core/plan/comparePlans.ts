import { SpeedVerdict } from '../timing/verdict';
import { CostedNode } from './cost';
import { ExplainedPlan, walkPlan } from './explain';

export interface PlanDifference {
  /** Better (+1), worse (-1) or neutral (0) for the prediction, as a plan step goes. */
  direction: 1 | -1 | 0;
  message: string;
}

interface PlanTraits {
  access: Map<string, string[]>; // real table → how each read of it goes
  tempBTrees: Map<string, number>; // purpose → count
  correlated: number;
  automaticIndexes: string[];
  /** CO-ROUTINE and MATERIALIZE steps, and the passes over their results. */
  subqueryResults: number;
  subqueryScans: number;
}

function describeAccess(node: CostedNode): string {
  if (node.kind === 'scan') return node.index ? `SCAN USING ${node.covering ? 'COVERING ' : ''}INDEX ${node.index}` : 'SCAN';
  if (node.automatic) return 'SEARCH USING AUTOMATIC INDEX';
  return node.index ? `SEARCH USING ${node.index}` : 'SEARCH';
}

function traits(plan: ExplainedPlan): PlanTraits {
  const result: PlanTraits = {
    access: new Map(),
    tempBTrees: new Map(),
    correlated: 0,
    automaticIndexes: [],
    subqueryResults: 0,
    subqueryScans: 0,
  };
  // A SCAN naming a co-routine or materialized subquery reads its result, not a table (even where an alias
  // inside the subquery resolves the same name to a table).
  const producers = new Set<string>();
  for (const node of walkPlan(plan.nodes))
    if ((node.kind === 'co-routine' || node.kind === 'materialize') && node.subquery) producers.add(node.subquery.toLowerCase());
  for (const node of walkPlan(plan.nodes)) {
    if (node.kind === 'co-routine' || node.kind === 'materialize') result.subqueryResults++;
    if (node.kind === 'scan-subquery' || (node.kind === 'scan' && producers.has((node.table ?? '').toLowerCase()))) {
      result.subqueryScans++;
      continue;
    }
    if (node.kind === 'scan' || node.kind === 'search') {
      const table = node.realTable ?? node.table ?? '?';
      result.access.set(table, [...(result.access.get(table) ?? []), describeAccess(node)]);
      if (node.automatic) result.automaticIndexes.push(table);
    }
    if (node.kind === 'temp-btree' || (node.kind === 'compound' && node.purpose)) {
      const purpose = node.purpose ?? 'COMPOUND';
      result.tempBTrees.set(purpose, (result.tempBTrees.get(purpose) ?? 0) + 1);
    }
    if (node.kind === 'subquery' && node.correlated) result.correlated++;
  }
  return result;
}

/** A planner's plan (PostgreSQL): how each table is read, by operator, and how many of every other operator it has. */
interface PlannedTraits {
  access: Map<string, { text: string; full: boolean }[]>;
  operators: Map<string, number>;
  correlated: number;
}

function plannedTraits(plan: ExplainedPlan): PlannedTraits {
  const result: PlannedTraits = { access: new Map(), operators: new Map(), correlated: 0 };
  for (const node of walkPlan(plan.nodes)) {
    const table = node.realTable ?? node.table;
    if ((node.kind === 'scan' || node.kind === 'search') && table) {
      const text = `${node.nodeType ?? node.kind}${node.index ? ` using ${node.index}` : ''}`;
      result.access.set(table, [...(result.access.get(table) ?? []), { text, full: node.kind === 'scan' }]);
    } else if (node.kind === 'subquery') {
      if (node.correlated) result.correlated++;
    } else if (node.nodeType && node.kind !== 'search') {
      // A Bitmap Index Scan serves the Bitmap Heap Scan above it, which names the table: counted there.
      result.operators.set(node.nodeType, (result.operators.get(node.nodeType) ?? 0) + 1);
    }
  }
  return result;
}

/** Operators whose extra copies cost the prediction: sorts and hashes build a whole input before yielding a row. */
const COSTLY_OPERATORS = new Set(['Sort', 'Incremental Sort', 'Hash', 'Materialize', 'HashAggregate', 'SetOp']);

/** Two planner's plans (PostgreSQL): tables read another way, operators added or dropped, correlated subplans, the planner's cost. */
function comparePlannedPlans(gold: ExplainedPlan, predicted: ExplainedPlan): PlanDifference[] {
  const g = plannedTraits(gold);
  const p = plannedTraits(predicted);
  const out: PlanDifference[] = [];
  for (const table of new Set([...g.access.keys(), ...p.access.keys()])) {
    const before = g.access.get(table) ?? [];
    const after = p.access.get(table) ?? [];
    const say = (list: { text: string }[]) => (list.length ? list.map((a) => a.text).join(' + ') : 'not read');
    if (say(before) === say(after)) continue;
    const full = (list: { full: boolean }[]) => list.filter((a) => a.full).length;
    const direction = full(after) < full(before) ? 1 : full(after) > full(before) ? -1 : 0;
    out.push({ direction, message: `${table}: ${say(before)} → ${say(after)}` });
  }
  for (const operator of new Set([...g.operators.keys(), ...p.operators.keys()])) {
    const before = g.operators.get(operator) ?? 0;
    const after = p.operators.get(operator) ?? 0;
    if (before === after) continue;
    const direction = COSTLY_OPERATORS.has(operator) ? (after > before ? -1 : 1) : 0;
    out.push({ direction, message: `${operator}: ${before} → ${after} step${after === 1 ? '' : 's'}` });
  }
  const correlated = p.correlated - g.correlated;
  if (correlated !== 0)
    out.push({
      direction: correlated > 0 ? -1 : 1,
      message: `${Math.abs(correlated)} ${correlated > 0 ? 'more' : 'fewer'} correlated subplan${Math.abs(correlated) > 1 ? 's' : ''}${correlated > 0 ? ' (re-run for every outer row)' : ''}`,
    });
  const [before, after] = [gold.cost.totalCost ?? 0, predicted.cost.totalCost ?? 0];
  if (before !== after)
    out.push({ direction: after < before ? 1 : -1, message: `planner cost ${before.toFixed(2)} → ${after.toFixed(2)}` });
  return out;
}

/** What the predicted plan does differently from the gold plan, step kind by step kind. */
export function comparePlans(gold: ExplainedPlan, predicted: ExplainedPlan): PlanDifference[] {
  // A query without a plan (a compile error, a refusal) takes no steps to compare: say so, never "the same steps".
  if (gold.error && predicted.error)
    return [{ direction: 0, message: `neither query has a plan (gold: ${gold.error}; prediction: ${predicted.error})` }];
  if (gold.error) return [{ direction: 0, message: `the gold has no plan: ${gold.error}` }];
  if (predicted.error) return [{ direction: 0, message: `the prediction has no plan: ${predicted.error}` }];
  if (gold.cost.totalCost !== undefined || predicted.cost.totalCost !== undefined) return comparePlannedPlans(gold, predicted);
  const g = traits(gold);
  const p = traits(predicted);
  const out: PlanDifference[] = [];
  for (const table of new Set([...g.access.keys(), ...p.access.keys()])) {
    const before = g.access.get(table) ?? [];
    const after = p.access.get(table) ?? [];
    if (before.join('|') === after.join('|')) continue;
    const scans = (list: string[]) => list.filter((a) => a === 'SCAN').length;
    const direction = scans(after) < scans(before) ? 1 : scans(after) > scans(before) ? -1 : 0;
    const say = (list: string[]) => (list.length ? list.join(' + ') : 'not read');
    out.push({ direction, message: `${table}: ${say(before)} → ${say(after)}` });
  }
  for (const purpose of new Set([...g.tempBTrees.keys(), ...p.tempBTrees.keys()])) {
    const delta = (p.tempBTrees.get(purpose) ?? 0) - (g.tempBTrees.get(purpose) ?? 0);
    if (delta > 0) out.push({ direction: -1, message: `new temp B-tree for ${purpose}${delta > 1 ? ` (×${delta})` : ''}` });
    if (delta < 0) out.push({ direction: 1, message: `no temp B-tree for ${purpose} (gold has ${-delta})` });
  }
  if (p.correlated > g.correlated)
    out.push({
      direction: -1,
      message: `${p.correlated - g.correlated} more correlated subquer${p.correlated - g.correlated > 1 ? 'ies' : 'y'} (re-run for every outer row)`,
    });
  if (p.correlated < g.correlated)
    out.push({
      direction: 1,
      message: `${g.correlated - p.correlated} fewer correlated subquer${g.correlated - p.correlated > 1 ? 'ies' : 'y'}`,
    });
  const autoDelta = p.automaticIndexes.length - g.automaticIndexes.length;
  if (autoDelta > 0)
    out.push({
      direction: -1,
      message: `builds ${autoDelta} more automatic index${autoDelta > 1 ? 'es' : ''} at run time (${p.automaticIndexes.join(', ')})`,
    });
  if (autoDelta < 0) out.push({ direction: 1, message: `builds ${-autoDelta} fewer automatic index${-autoDelta > 1 ? 'es' : ''}` });
  const resultDelta = p.subqueryResults - g.subqueryResults;
  if (resultDelta > 0)
    out.push({
      direction: -1,
      message: `computes ${resultDelta} more subquery result${resultDelta > 1 ? 's' : ''} (CO-ROUTINE or MATERIALIZE) and reads it back`,
    });
  if (resultDelta < 0)
    out.push({
      direction: 1,
      message: `computes ${-resultDelta} fewer subquery result${-resultDelta > 1 ? 's' : ''} (gold has a CO-ROUTINE or MATERIALIZE step more)`,
    });
  const scanDelta = p.subqueryScans - g.subqueryScans;
  if (resultDelta === 0 && scanDelta !== 0)
    out.push({
      direction: scanDelta > 0 ? -1 : 1,
      message: `${Math.abs(scanDelta)} ${scanDelta > 0 ? 'more' : 'fewer'} pass${Math.abs(scanDelta) > 1 ? 'es' : ''} over a subquery's result`,
    });
  // Whatever the traits above miss, a different rule cost is a difference: never report "the same steps" then.
  if (out.length === 0 && gold.cost.rule !== predicted.cost.rule) {
    out.push({ direction: predicted.cost.rule < gold.cost.rule ? 1 : -1, message: `rule cost ${gold.cost.rule} → ${predicted.cost.rule}` });
  }
  return out;
}

/**
 * True when a plan-cost change points against a measurement shown beside it: a cheaper estimate for a query
 * measured slower, a dearer one for a query measured faster (issue 34: "~149.5K → ~485.9K row visits" beside an
 * index measured 22× as fast). The measurement decides; such an estimate is said to disagree, never shown as an arrow.
 */
export function estimateContradicts(before: number, after: number, measured: SpeedVerdict | undefined): boolean {
  return (measured === 'faster' && after > before) || (measured === 'slower' && after < before);
}
