/** The audit slice: every gold SQL of the attached dataset audited (goldAuditRun.ts), for the Gold Audit panel. */
import { AuditGoldParams, AuditGoldResult, AuditProgressValue, VesLensErrorCodes } from '../../shared/protocol';
import { ServerContext } from '../context';
import { UserError } from '../errors';
import { optimizeRunSettings } from '../optimize/optimizeSettings';
import { AuditInputError, runGoldAudit } from './goldAuditRun';

export class AuditProvider {
  constructor(private readonly context: ServerContext) {}

  /** Cancelled, it returns the gold audited so far. */
  async auditGold(params: AuditGoldParams, signal?: AbortSignal, progress?: (value: AuditProgressValue) => void): Promise<AuditGoldResult> {
    this.context.requireTrust();
    this.context.requireQuestions('auditing its gold SQL');
    const { state, limits } = this.context;
    const files = params.predictionFiles?.length ? ` with ${params.predictionFiles.length} prediction files` : '';
    const scales = params.scales?.length ? `, at scales ${params.scales.join(', ')}` : '';
    this.context.log(`auditing ${state.questions.length} gold SQL${files}${scales}`);
    try {
      const optimize = this.context.settings.optimizeInAudit ? optimizeRunSettings(this.context, this.context.settings.engine) : undefined;
      const result = await runGoldAudit(state, limits, params, signal, progress, optimize);
      const audited = `${result.audit.entries.length} of ${result.total} gold SQL${result.partial ? ' (cancelled)' : ''}`;
      this.context.log(`audited ${audited}: ${result.marks.length} worth another look`);
      return result;
    } catch (error) {
      if (error instanceof AuditInputError) throw new UserError(error.message, VesLensErrorCodes.badInput);
      throw error;
    }
  }
}
