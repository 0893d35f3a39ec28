/**
 * The optimize slice (issue 28): "Find a faster equivalent" of one statement of the editor, and its index advice.
 * Everything decided here is core's: the search, proof and measurement (core/optimize/optimizeStatement.ts, with
 * the settings checked by app/optimizeRun.ts's prepareOptimizeRun) and the index verdicts (core/plan/indexAdvice.ts).
 * This module runs them on the statement's database with the vesLens.optimize.* bounds, progress and cancellation,
 * and turns the rewrite into an edit of the document for Apply.
 */
import { OpenDatabase } from '../../core/db/connectionCache';
import { dialectOf } from '../../core/db/readQuery';
import { openDatabase } from '../../core/db/engines';
import { optimizeStatement, OptimizeTarget } from '../../core/optimize/optimizeStatement';
import { adviseIndexes, IndexVerdict } from '../../core/plan/indexAdvice';
import { scaledCopy } from '../../core/scale/scaledCopy';
import { SqlUnit } from '../../core/sql/documentUnits';
import { prepareOptimizeRun } from '../../app/optimizeRun';
import { RunRefused } from '../../app/runRefused';
import {
  IndexAdviceParams,
  IndexAdviceResult,
  IndexVerdictView,
  OptimizeEdit,
  OptimizeParams,
  OptimizeResult,
  VesLensErrorCodes,
} from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError, UserError } from '../errors';
import { QueryTargets } from '../queryTargets';
import { formatSql, formattedRewriteEdit } from '../../app/sqlLayout';
import { optimizeBounds, optimizeRunSettings } from './optimizeSettings';

export class OptimizeProvider {
  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {}

  /** The statement's faster verified equivalent, if the search finds one within the bounds; cancelled with the request. */
  async optimize(params: OptimizeParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<OptimizeResult> {
    this.context.requireTrust();
    const started = performance.now();
    const { sql, unit, document } = this.targets.requestedUnit(params);
    const { database, dbId } = await this.targets.targetDatabase(params, unit);
    const bounds = optimizeBounds(this.context);
    const settings = optimizeRunSettings(this.context, database.db.engine.name);
    try {
      prepareOptimizeRun(settings);
    } catch (error) {
      if (error instanceof RunRefused) throw new UserError(editorText(error.message), VesLensErrorCodes.badInput);
      throw error;
    }
    const target: OptimizeTarget = { db: database.db, schema: database.schema };
    let scaled: { path: string; close: () => Promise<void> } | undefined;
    const interrupt = () => database.db.interrupt();
    signal?.addEventListener('abort', interrupt);
    try {
      if (bounds.scale !== 1) {
        progress?.(`making the ×${bounds.scale} copy of ${dbId ?? 'the database'} (built once, then cached)`);
        const copy = await scaledCopy(database.path, bounds.scale, { dbId });
        const db = await openDatabase(copy);
        scaled = { path: copy, close: () => db.close() };
        target.scaled = { factor: bounds.scale, db };
      }
      if (signal?.aborted) throw new CancelledError();
      const question = this.targets.targetQuestion(params, unit);
      const optimization = await optimizeStatement(
        sql,
        target,
        { ...settings.optimize, signal, onStep: (step) => progress?.(editorText(step)) },
        { dbId, questionId: question?.questionId },
      );
      if (signal?.aborted) throw new CancelledError();
      const dialect = dialectOf(database.db.engine);
      const best = optimization.best;
      return {
        optimization,
        formatted: { original: formatSql(sql, dialect), rewrite: best ? formatSql(best.sql, dialect) : null },
        dbId,
        dbPath: database.path,
        ...(scaled ? { scaledCopy: scaled.path } : {}),
        question,
        source:
          unit && document ? { uri: document.uri, version: document.version, line: document.positionAt(unit.start).line + 1 } : undefined,
        edit: best && unit && document ? this.edit(document, unit, best.sql, database) : null,
        bounds,
        engine: this.context.state.engineLine,
        elapsedMs: performance.now() - started,
      };
    } finally {
      signal?.removeEventListener('abort', interrupt);
      await scaled?.close();
    }
  }

  /** The whole statement replaced by the rewrite: a .sql statement laid out as it was, a JSON string's text escaped. */
  private edit(
    document: { uri: string; version: number; languageId: string; getText(): string },
    unit: SqlUnit,
    rewrite: string,
    database: OpenDatabase,
  ): OptimizeEdit {
    const whole = { start: unit.start, end: unit.end, text: rewrite };
    const edit =
      document.languageId === 'sql'
        ? formattedRewriteEdit(document.getText(), unit, whole, dialectOf(database.db.engine))
        : { ...whole, text: JSON.stringify(rewrite).slice(1, -1) };
    return { uri: document.uri, version: document.version, ...edit };
  }

  /** The indexes that would speed the statement (never created on its database), measured when asked. */
  async indexAdvice(params: IndexAdviceParams, signal?: AbortSignal): Promise<IndexAdviceResult> {
    this.context.requireTrust();
    const started = performance.now();
    const { sql, unit } = this.targets.requestedUnit(params);
    const { database, dbId } = await this.targets.targetDatabase(params, unit);
    const advice = await adviseIndexes(database.db, sql, database.schema, {
      measure: Boolean(params.measure),
      timeoutMs: this.context.limits.timeoutMs,
    });
    if (signal?.aborted) throw new CancelledError();
    return {
      sql,
      dbId,
      measured: Boolean(params.measure),
      verdicts: advice.verdicts.map(verdictView),
      ...(advice.error ? { error: editorText(advice.error) } : {}),
      ...(advice.unchecked
        ? { unchecked: { createSql: advice.unchecked.candidates.map((c) => c.createSql), reason: editorText(advice.unchecked.reason) } }
        : {}),
      ...(advice.method ? { method: advice.method } : {}),
      engine: this.context.state.engineLine,
      elapsedMs: performance.now() - started,
    };
  }
}

function verdictView(v: IndexVerdict): IndexVerdictView {
  const { candidate, measured } = v;
  return {
    table: candidate.table,
    columns: candidate.columns,
    name: candidate.name,
    createSql: candidate.createSql,
    reason: candidate.reason,
    used: v.used,
    recommended: v.recommended,
    ...(measured
      ? {
          measured: {
            ratio: measured.ratio,
            low: measured.low,
            high: measured.high,
            withoutMs: measured.goldMs,
            withMs: measured.predMs,
            runs: measured.runs,
          },
        }
      : {}),
    ...(v.speed ? { speed: v.speed } : {}),
    ...(v.unmeasured ? { unmeasured: editorText(v.unmeasured) } : {}),
  };
}
