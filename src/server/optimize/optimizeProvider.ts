/**
 * The optimize slice (issue 28): "Find a faster equivalent" of one statement of the editor, and its index advice.
 * Everything decided here is the application layer's: the search, proof and measurement on the statement's database
 * (app/statementOptimize.ts, with the settings checked by app/optimizeRun.ts's prepareOptimizeRun) and the index
 * verdicts (app/statementPlan.ts). This module hands them the vesLens.optimize.* bounds, progress and
 * cancellation, and words what they return.
 */
import { prepareOptimizeRun } from '../../app/optimizeRun';
import { RunRefused } from '../../app/runRefused';
import { optimizeOnDatabase } from '../../app/statementOptimize';
import { statementIndexAdvice } from '../../app/statementPlan';
import { IndexAdviceParams, IndexAdviceResult, OptimizeParams, OptimizeResult, VesLensErrorCodes } from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError, UserError } from '../errors';
import { QueryTargets } from '../queryTargets';
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
    const question = this.targets.targetQuestion(params, unit);
    const optimized = await optimizeOnDatabase(database, sql, settings, {
      dbId,
      questionId: question?.questionId,
      source: unit && document ? { document: { languageId: document.languageId, text: document.getText() }, statement: unit } : undefined,
      signal,
      progress: progress && ((message) => progress(editorText(message))),
    });
    if ('cancelled' in optimized) throw new CancelledError();
    return {
      optimization: optimized.optimization,
      formatted: optimized.formatted,
      dbId,
      dbPath: database.path,
      ...(optimized.scaledCopy ? { scaledCopy: optimized.scaledCopy } : {}),
      question,
      source:
        unit && document ? { uri: document.uri, version: document.version, line: document.positionAt(unit.start).line + 1 } : undefined,
      edit: optimized.edit && document ? { uri: document.uri, version: document.version, ...optimized.edit } : null,
      bounds,
      engine: this.context.state.engineLine,
      elapsedMs: performance.now() - started,
    };
  }

  /** The indexes that would speed the statement (never created on its database), measured when asked. */
  async indexAdvice(params: IndexAdviceParams, signal?: AbortSignal): Promise<IndexAdviceResult> {
    this.context.requireTrust();
    const started = performance.now();
    const { sql, unit } = this.targets.requestedUnit(params);
    const { database, dbId } = await this.targets.targetDatabase(params, unit);
    const measure = Boolean(params.measure);
    const advice = await statementIndexAdvice(database, sql, { measure, timeoutMs: this.context.limits.timeoutMs }, editorText);
    if (signal?.aborted) throw new CancelledError();
    return {
      sql,
      dbId,
      ...advice,
      engine: this.context.state.engineLine,
      elapsedMs: performance.now() - started,
    };
  }
}
