import * as path from 'path';
import { parseJsonFile, readTextFile } from '../bird/jsonFile';
import { InputFileError } from '../bird/problems';
import { QuestionResult } from './types';
import type { PlanCostPair } from '../plan/cost';

/**
 * One question of an `eval --json` report as other commands read it back: the contract of eval/types.ts plus
 * what later stages may add (plan costs for the HTML report, SQLMorph techniques, a judge's verdict).
 */
export type ReportQuestion = QuestionResult & {
  plan_cost?: PlanCostPair;
  techniques?: Record<string, unknown> | null;
  judge?: { score?: number | null } | null;
  predicted_sql?: string | null;
  gold_sql?: string | null;
};

/** An `eval --json` (or `merge --json`, `judge --json`) report, as written. */
export interface EvalReportJson {
  tool?: { name?: string; version?: string; sqlite?: string };
  inputs?: Record<string, unknown> & { metrics?: string[]; shard?: ShardInfo; db_root?: string; predictions?: string; questions?: string };
  summary?: Record<string, unknown>;
  problems?: string[];
  headline_problems?: string[];
  questions: ReportQuestion[];
  [key: string]: unknown;
}

/** `eval --shard i/n`: which shard a report holds, and how many questions the whole question file has. */
export interface ShardInfo {
  index: number;
  count: number;
  of_questions: number;
}

export interface LoadedReport {
  file: string;
  /** A short name for tables: the file name, made unique among the files compared. */
  label: string;
  report: EvalReportJson;
}

const fail = (file: string, where: string | undefined, message: string): never => {
  throw new InputFileError({ file, where, message });
};

/**
 * Reads an eval JSON report and checks the fields the comparison, merge and report read, naming the file and
 * key of anything amiss (a prediction file or a question file given by mistake is named as such).
 */
export function loadEvalReport(file: string, what = 'eval report'): LoadedReport {
  const value = parseJsonFile(file, readTextFile(file, what));
  if (Array.isArray(value)) {
    const first = value[0] as Record<string, unknown> | undefined;
    const kind = first && typeof first === 'object' && 'question' in first ? 'a BIRD question file' : 'a JSON list (a prediction file?)';
    fail(file, undefined, `${kind}, not an ${what}: give the file \`ves-lens eval --json\` wrote`);
  }
  if (!value || typeof value !== 'object')
    fail(file, undefined, `not an ${what}: expected the JSON object \`ves-lens eval --json\` writes`);
  const report = value as EvalReportJson;
  if (!Array.isArray(report.questions)) {
    const values = Object.values(report as object);
    const looksLikePredictions = values.length > 0 && values.every((v) => typeof v === 'string');
    fail(
      file,
      'key "questions"',
      looksLikePredictions
        ? `a prediction file, not an ${what}: score it first with \`ves-lens eval --json\``
        : `no "questions" list: not an ${what} (written by \`ves-lens eval --json\`)`,
    );
  }
  report.questions.forEach((q, i) => {
    const where = `questions[${i}]`;
    if (!q || typeof q !== 'object') fail(file, where, 'expected an object');
    if (typeof q.question_id !== 'number' && typeof q.question_id !== 'string')
      fail(file, `${where}.question_id`, 'missing (a number or a string)');
    if (q.ex !== 0 && q.ex !== 1) fail(file, `${where}.ex`, `expected 0 or 1, got ${JSON.stringify(q.ex)}`);
    if (typeof q.outcome !== 'string') fail(file, `${where}.outcome`, 'missing');
    if (typeof q.index !== 'number') fail(file, `${where}.index`, 'missing (the position in the question file)');
    for (const key of ['f1', 'ves', 'rves', 'time_ratio', 'gold_ms', 'pred_ms'] as const) {
      const v = q[key];
      if (v !== null && v !== undefined && typeof v !== 'number')
        fail(file, `${where}.${key}`, `expected a number or null, got ${JSON.stringify(v)}`);
    }
  });
  return { file, label: path.basename(file), report };
}

/** Short unique labels for several files: their names, or more of their paths where names collide. */
export function uniqueLabels(files: readonly string[]): string[] {
  const names = files.map((f) => path.basename(f).replace(/\.json$/i, ''));
  return names.map((name, i) => {
    const same = names.filter((n) => n === name).length;
    if (same === 1) return name;
    const parent = path.basename(path.dirname(path.resolve(files[i])));
    const longer = `${parent}/${name}`;
    return files.slice(0, i).some((f, j) => names[j] === name && path.basename(path.dirname(path.resolve(f))) === parent)
      ? `${longer} (${i + 1})`
      : longer;
  });
}

/**
 * A key naming a question across reports: its question_id and database, and its occurrence when a file
 * repeats an id (mini-dev v1 repeats 137 and 138).
 */
export function questionKeys(questions: readonly ReportQuestion[]): string[] {
  const seen = new Map<string, number>();
  return questions.map((q) => {
    const base = `${q.question_id}@${q.db_id}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  });
}

/** The metrics a report asked for (`inputs.metrics`), or those its questions carry. */
export function reportMetrics(report: EvalReportJson): string[] {
  if (Array.isArray(report.inputs?.metrics)) return report.inputs.metrics.map(String);
  const q = report.questions[0];
  return ['ex', ...(['f1', 'ves', 'rves'] as const).filter((m) => q && q[m] !== null && q[m] !== undefined)];
}
