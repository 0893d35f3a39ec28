/** The plan slice: explain one query (its plan cards) and time it alone (the Plan panel). */
import { RequestType } from 'vscode-languageserver-protocol';
import type { TimedAlone } from '../../app/queryRuns';
import type { PlanNode } from '../../core/db/planTree';
import type { PlanDifference } from '../../core/plan/comparePlans';
import type { CostedNode, PlanCost } from '../../core/plan/cost';
import type { ExplainedPlan } from '../../core/plan/explain';
import type { QuestionInfo } from './dataset';
import type { QueryTarget, ResultPreview } from './queries';

/** One step of a query plan, as core's costed plan tree has it (kind, table, index, both costs), for a view to draw. */
export interface PlanNodeView
  extends
    Pick<
      PlanNode,
      | 'kind'
      | 'detail'
      | 'table'
      | 'alias'
      | 'index'
      | 'covering'
      | 'automatic'
      | 'constraint'
      | 'purpose'
      | 'subqueryType'
      | 'correlated'
      | 'subquery'
      | 'operator'
      | 'nodeType'
      | 'estimatedRows'
      | 'startupCost'
      | 'totalCost'
      | 'filter'
      | 'rowsRemovedByFilter'
    >,
    Pick<CostedNode, 'realTable' | 'rowCount' | 'ruleCost' | 'rowsOut' | 'loops' | 'measured'> {
  /** Position in the tree: indexes from the root list down (`[0, 2]`: the first root's third child). */
  path: number[];
  /** Estimated row visits of this step with its children (PostgreSQL: its planner's Total Cost), and its share of the plan's total (0..1). */
  work: number;
  share: number;
  /** Row visits of this step alone, without its children (PostgreSQL: its own cost, pev2's exclusive cost). */
  selfWork: number;
  /** The step with the most row visits (PostgreSQL: cost) of its own in the plan. */
  costliest: boolean;
  /** EXPLAIN ANALYZE: the step that took the most time of its own. */
  slowest?: boolean;
  children: PlanNodeView[];
}

/** A plan's cards: its steps, and its costs as core's PlanCost names them (`rule`, `work`; PostgreSQL's `totalCost`). */
export interface PlanView extends PlanCost {
  /** Why there is no plan: the engine's compile error, or a refusal. */
  error?: string;
  /** EXPLAIN ANALYZE (PostgreSQL): the query ran; milliseconds planning and executing it. */
  measured?: ExplainedPlan['measured'];
  nodes: PlanNodeView[];
}

/** What differs between two plans, as core's comparePlans says it (its message worded for the editor). */
export type PlanDifferenceView = PlanDifference;

/** One row of two plans laid side by side: a gold step, a predicted step, or both when they correspond. */
export interface AlignedPlanRow {
  gold?: number[];
  pred?: number[];
  depth: number;
  /** same: identical step; changed: the same place read another way; gold-only / pred-only: a step the other plan lacks. */
  mark: 'same' | 'changed' | 'gold-only' | 'pred-only';
}

export interface PlanComparison {
  rows: AlignedPlanRow[];
  differences: PlanDifferenceView[];
  /** One sentence: "the two plans take the same steps", "the prediction has no plan: ...", or what differs. */
  summary: string;
}

/** `analyze`: run the query too and measure each step (PostgreSQL's EXPLAIN ANALYZE, read-only, within the time limit). */
export type ExplainParams = QueryTarget & { analyze?: boolean };

export interface ExplainResult {
  plan: PlanView;
  /** As it ran, and formatted for reading. */
  sql: string;
  formattedSql: string;
  dbId?: string;
  dbPath: string;
  question?: QuestionInfo;
  /** Where the statement is: the document and 1-based line, when it came from one. */
  source?: { uri: string; line: number };
  sqlite: string;
  /** What ran the SQL, in one line (DatasetSummary's engine line: engine, version, embedded or server, no password). */
  engine: string;
}

export type TimeQueryParams = QueryTarget;

/** One query timed on its own: milliseconds per full execution (fresh connection each time), with an interval. */
export interface TimeQueryResult extends TimedAlone {
  question?: QuestionInfo;
  sql: string;
  formattedSql: string;
  dbId?: string;
  preview: ResultPreview;
  plan: PlanView;
  error?: string;
  sqlite: string;
  /** What ran the SQL, in one line (DatasetSummary's engine line: engine, version, embedded or server, no password). */
  engine: string;
}

export const ExplainRequest = new RequestType<ExplainParams, ExplainResult, void>('vesLens/explain');
export const TimeQueryRequest = new RequestType<TimeQueryParams, TimeQueryResult, void>('vesLens/timeQuery');
