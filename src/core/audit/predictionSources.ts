import { DatabaseSource } from '../db/source';
import { GoldFile } from '../bird/gold';
import { parseJsonFile, readTextFile } from '../bird/jsonFile';
import { loadPredictions, PredictionFile } from '../bird/predictions';
import { InputFileError, InputProblem } from '../bird/problems';
import { Question } from '../bird/questions';
import { EvalProgress } from '../eval/evaluate';
import { LoadedReport, loadEvalReport } from '../eval/reportFile';
import { evidenceFromPredictions, evidenceFromReport, PredictionEvidence } from './predictionEvidence';

/** A prediction input of the audit: an `eval --json` report (read as it is) or a prediction file (scored against the gold). */
export type PredictionSource = { file: string; report: LoadedReport } | { file: string; predictions: PredictionFile };

/** An `eval --json` report rather than a prediction file: a JSON object with a `questions` list of results. */
export function isEvalReport(file: string): boolean {
  const text = readTextFile(file, 'prediction file');
  const start = text.trimStart()[0];
  if (start !== '{') return false;
  const value = parseJsonFile(file, text) as Record<string, unknown>;
  return Array.isArray(value.questions) && value.questions.every((q) => q && typeof q === 'object' && 'ex' in (q as object));
}

/** Reads every prediction input before any slow work, so a wrong file stops the audit at once (InputFileError names it). */
export function readPredictionSources(files: readonly string[], questions: readonly Question[]): PredictionSource[] {
  const dbIds = new Set(questions.map((q) => q.dbId).filter(Boolean));
  return files.map((file): PredictionSource =>
    isEvalReport(file) ? { file, report: loadEvalReport(file, 'eval report') } : { file, predictions: loadPredictions(file, { dbIds }) },
  );
}

export interface EvidenceOptions {
  dbRoot: string;
  /** Where the predictions run; default: the SQLite files under dbRoot. */
  source?: DatabaseSource;
  timeoutMs: number;
  maxRows: number;
  /** Where the questions came from, for the message of a report of other questions. */
  questionsFile: string;
  /** A prediction file (not a report) is about to be scored against the gold. */
  onScoring?: (file: string) => void;
  onProgress?: (progress: EvalProgress, file: string) => void;
  signal?: AbortSignal;
}

/**
 * What each prediction input says about the gold: a report is matched to the questions (one of other questions
 * is refused; one covering only some is a headline problem), a prediction file is scored as `eval` would.
 */
export async function gatherEvidence(
  sources: readonly PredictionSource[],
  questions: Question[],
  gold: GoldFile | undefined,
  problems: InputProblem[],
  options: EvidenceOptions,
): Promise<PredictionEvidence[]> {
  const evidence: PredictionEvidence[] = [];
  for (const source of sources) {
    if ('report' in source) {
      const { evidence: found, matched } = evidenceFromReport(source.report, questions);
      if (matched === 0)
        throw new InputFileError({
          file: source.file,
          message: `an eval report of other questions (none of its questions is in ${options.questionsFile})`,
        });
      if (matched < questions.length)
        problems.push({ file: source.file, message: `covers ${matched} of the ${questions.length} questions`, headline: true });
      evidence.push(found);
      continue;
    }
    if (options.signal?.aborted) break;
    options.onScoring?.(source.file);
    evidence.push(
      await evidenceFromPredictions(source.predictions, questions, gold, problems, {
        dbRoot: options.dbRoot,
        source: options.source,
        timeoutMs: options.timeoutMs,
        maxRows: options.maxRows,
        goldFrom: gold ? 'gold-file' : 'questions',
        onProgress: (p) => options.onProgress?.(p, source.file),
        signal: options.signal,
      }),
    );
  }
  return evidence;
}
