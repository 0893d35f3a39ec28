import { auditRunPage, prepareAuditRun, runAuditRun } from '../../app/auditRun';
import type { OptimizeRunSettings } from '../../app/optimizeRun';
import { failureKind } from '../../app/runRefused';
import { formatProblem, orderProblems } from '../../core/text/problemText';
import packageJson from '../../../package.json';
import { AuditGoldParams, AuditGoldResult, AuditProgressValue } from '../../shared/protocol';
import type { DatasetState } from '../../app/datasetOpen';
import { editorText } from '../editorText';

/** A problem the person can act on (a wrong prediction file): the service turns it into a UserError. */
export class AuditInputError extends Error {}

/**
 * The gold audit of the attached dataset, the use case `ves-lens audit` runs too (app/auditRun.ts): prediction
 * inputs read first (a wrong file stops before any slow work), then each gold in turn with a progress step; the
 * page drawn by core's auditHtml. Cancelled, it returns the gold audited so far.
 */
export async function runGoldAudit(
  state: DatasetState,
  limits: { timeoutMs: number; maxRows: number },
  params: AuditGoldParams,
  signal?: AbortSignal,
  progress?: (value: AuditProgressValue) => void,
  /** Also search each gold for a faster verified equivalent (setting vesLens.optimize.inAudit). */
  optimize?: OptimizeRunSettings,
): Promise<AuditGoldResult> {
  const dataset = state.dataset!;
  const questions = state.questions;
  const total = questions.length;
  const asUserError = (error: Error) => {
    // A file that cannot be used, an option refused, an outside service given up: the person can act on each.
    throw failureKind(error) === 'refused' ? new AuditInputError(editorText(error.message)) : error;
  };
  const prepared = await prepareAuditRun(
    {
      kind: 'dataset',
      questions,
      goldFile: state.goldFile,
      goldPath: dataset.goldFile,
      questionsFile: dataset.questionsFile,
      dbRoot: dataset.dbRoot,
      predictions: params.predictionFiles,
    },
    {
      // The audit runs on the dataset's SQLite files (no source given); its optimizer step on vesLens.engine's.
      ...limits,
      measure: true,
      correctness: params.correctness ?? true,
      scales: params.scales?.length ? params.scales : undefined,
      optimize,
      optimizeSource: state.source,
    },
  ).catch(asUserError);
  const { audit, marks, problems, optimizeRefused } = await runAuditRun(prepared, {
    signal,
    onScoringProgress: (p, file) =>
      progress?.({
        message: `scoring ${file.split(/[\\/]/).pop()} against the gold: ${p.phase === 'correctness' ? `${p.done}/${p.total}` : `timing pass ${p.pass ?? ''}`}`,
        done: 0,
        total,
      }),
    onProgress: (done, all, item) => {
      if (done < all)
        progress?.({
          message: `${done + 1}/${all}: question ${item.question.questionId} (${item.question.dbId || 'no database'})`,
          done,
          total: all,
        });
    },
    optimize: {
      onStatement: (index, all, input) =>
        progress?.({ message: `faster equivalent ${index + 1}/${all}: question ${input.questionId} (${input.dbId})`, done: total, total }),
    },
  }).catch(asUserError);
  // Settings the engine cannot honour (a scale on PostgreSQL): the audit stands, the step is said not to have run.
  if (optimizeRefused)
    problems.push({
      file: 'vesLens.optimize.scale',
      message: `no faster equivalents searched: ${editorText(optimizeRefused.message)}`,
      headline: true,
    });
  return {
    audit,
    marks,
    html: auditRunPage(prepared, audit, { sqlite: state.sqlite, version: packageJson.version }),
    partial: Boolean(signal?.aborted),
    total,
    problems: orderProblems(problems).map((p) => editorText(formatProblem(p))),
    dataset,
    sqlite: state.sqlite,
    finishedAt: new Date().toISOString(),
  };
}
