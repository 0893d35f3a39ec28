/** The plan slice: one query explained (its plan cards) and timed alone, for the Plan panel. */
import { QueryCancelled } from '../../core/db/database';
import { explainQuery } from '../../core/plan/explain';
import { ExplainParams, ExplainResult, ResultPreview, TimeQueryParams, TimeQueryResult } from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError } from '../errors';
import { QueryTargets } from '../queryTargets';
import { timeAlone } from '../../app/queryRuns';
import { formatSql } from '../../app/sqlLayout';
import { planView } from './planCards';

const EMPTY_PREVIEW: ResultPreview = { columns: [], rows: [], rowCount: null, truncated: false };
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
    const limitMs = this.context.limits.timeoutMs;
    const analyze = params.analyze ? { deadline: performance.now() + limitMs, budgetMs: limitMs, signal } : undefined;
    const plan = await explainQuery(database.db, sql, database.schema, { analyze });
    if (signal?.aborted) throw new CancelledError();
    return {
      plan: planView(plan),
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
    const plan = await explainQuery(database.db, sql, database.schema);
    const base = {
      question: this.targets.targetQuestion(params, unit),
      sql,
      formattedSql: formatSql(sql),
      dbId,
      plan: planView(plan),
      sqlite: this.context.state.sqlite,
      engine: this.context.state.engineLine,
    };
    const interrupt = () => database.db.interrupt();
    signal?.addEventListener('abort', interrupt);
    try {
      progress?.('running the query');
      const preview = await this.targets.preview(database, sql, signal);
      if (preview.error) return { ...base, ...NOT_TIMED, preview, error: preview.error };
      progress?.('timing the query (fresh connection per run)');
      const timed = await timeAlone(database.path, sql, { timeoutMs: this.context.limits.timeoutMs, signal });
      return { ...base, ...timed, preview };
    } catch (error) {
      if (error instanceof QueryCancelled || signal?.aborted) throw new CancelledError();
      return { ...base, ...NOT_TIMED, preview: EMPTY_PREVIEW, error: editorText((error as Error).message) };
    } finally {
      signal?.removeEventListener('abort', interrupt);
    }
  }
}
