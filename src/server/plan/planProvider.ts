/** The plan slice: one query explained (its plan cards) and timed alone, for the Plan panel. */
import { formatSql } from '../../app/sqlLayout';
import { explainStatement, timeStatement } from '../../app/statementPlan';
import { ExplainParams, ExplainResult, TimeQueryParams, TimeQueryResult } from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError } from '../errors';
import { QueryTargets } from '../queryTargets';

/** What a query that could not be timed reports as its times. */
const NOT_TIMED = { ms: 0, low: 0, high: 0, runs: 0, samples: [], firstRowMs: 0 };

export class PlanProvider {
  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {}

  /** One query's plan; with `analyze`, run and measured step by step (PostgreSQL), within the time limit, cancelled with the request. */
  async explain(params: ExplainParams, signal?: AbortSignal): Promise<ExplainResult> {
    this.context.requireTrust();
    const { sql, unit, document } = this.targets.requestedUnit(params);
    const { database, dbId } = await this.targets.targetDatabase(params, unit);
    const limits = { analyze: params.analyze, timeoutMs: this.context.limits.timeoutMs, signal };
    const plan = await explainStatement(database, sql, limits, editorText);
    if (signal?.aborted) throw new CancelledError();
    return {
      plan,
      sql,
      formattedSql: formatSql(sql),
      dbId,
      dbPath: database.path,
      question: this.targets.targetQuestion(params, unit),
      source: unit && document ? { uri: document.uri, line: document.positionAt(unit.start).line + 1 } : undefined,
      sqlite: this.context.state.sqlite,
      engine: this.context.state.engineLine,
    };
  }

  /** One query timed alone (no pair, no ratio): its milliseconds with an interval, its first rows and its plan. */
  async timeQuery(params: TimeQueryParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<TimeQueryResult> {
    this.context.requireTrust();
    const { sql, unit } = this.targets.requestedUnit(params);
    const { database, dbId } = await this.targets.targetDatabase(params, unit);
    const plan = await explainStatement(database, sql, { timeoutMs: this.context.limits.timeoutMs }, editorText);
    const base = {
      question: this.targets.targetQuestion(params, unit),
      sql,
      formattedSql: formatSql(sql),
      dbId,
      plan,
      sqlite: this.context.state.sqlite,
      engine: this.context.state.engineLine,
    };
    const timing = await timeStatement(
      database,
      sql,
      { timeoutMs: this.context.limits.timeoutMs, signal },
      { preview: () => this.targets.preview(database, sql, signal), progress },
    );
    if ('cancelled' in timing) throw new CancelledError();
    if ('error' in timing) return { ...base, ...NOT_TIMED, preview: timing.preview, error: editorText(timing.error) };
    return { ...base, ...timing.timed, preview: timing.preview };
  }
}
