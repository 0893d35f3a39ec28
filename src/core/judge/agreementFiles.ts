import { parseJsonFile, readTextFile } from '../bird/jsonFile';
import { InputFileError } from '../bird/problems';
import { AgreementStats, agreementStats, confusionOf } from './agreement';

/** Where a verdict came from: our judge's JSON, ROSE's eval_results.json, or EX from an `eval` (or `judge`) JSON. */
export type VerdictKind = 'judge' | 'rose' | 'ex';

export interface Labelled {
  questionId: string;
  sql?: string;
  label: boolean;
}

export interface Verdict {
  questionId: string;
  sql?: string;
  /** null: no verdict (a judge error, a skipped question, a missing score). */
  verdict: boolean | null;
  /** Which way the pair went through the cascade, where the file says (for the per-branch breakdown). */
  branch?: string;
  why?: string;
}

export interface LabelFile {
  file: string;
  items: Labelled[];
  /** Entries that carry no usable label (`item 3: label is "maybe"`). */
  unusable: string[];
}

export interface VerdictFile {
  file: string;
  kind: VerdictKind;
  items: Verdict[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? String(v) : undefined);

/** SQL texts that differ only in spacing or a final semicolon are the same prediction. */
export function normalizeSql(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(\s*;)+$/, '');
}

function labelValue(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  if (value === 1 || value === 0) return value === 1;
  return undefined;
}

/**
 * Expert labels: a JSON list of {question_id, predicted_sql, label} (ROSE-VEC's rose-vec-bird.json; ROSE's
 * eval_results.json also carries them). A label is a boolean ("true"/"false" and 1/0 accepted); an entry
 * without one is listed and left out (ROSE's analyze.py counts it as "incorrect").
 */
export function loadLabels(file: string): LabelFile {
  const data = parseJsonFile(file, readTextFile(file, 'label file'));
  if (!Array.isArray(data))
    throw new InputFileError({ file, message: 'a label file must be a JSON list of {question_id, predicted_sql, label}' });
  if (data.length && !data.some((item) => isRecord(item) && 'label' in item))
    throw new InputFileError({ file, message: 'no item has a "label": not a label file' });
  const items: Labelled[] = [];
  const unusable: string[] = [];
  data.forEach((item, i) => {
    const id = isRecord(item) ? idOf(item.question_id) : undefined;
    const label = isRecord(item) ? labelValue(item.label) : undefined;
    if (!isRecord(item) || id === undefined || label === undefined) {
      unusable.push(
        `item ${i}: ${!isRecord(item) ? 'not an object' : id === undefined ? 'no question_id' : `label is ${JSON.stringify(item.label) ?? 'missing'}`}`,
      );
      return;
    }
    items.push({ questionId: id, sql: typeof item.predicted_sql === 'string' ? item.predicted_sql : undefined, label });
  });
  return { file, items, unusable };
}

/** Branch names shared by ROSE's files and ours, for the per-branch breakdown (the branches of ROSE's eval_results.json files). */
export const BRANCHES = {
  match: 'results match → Refuter alone',
  rejected: 'Prover rejected',
  refuted: 'Prover passed → Refuter',
  passed: 'Prover passed (no Refuter)',
} as const;

/** ROSE's branch, read from its two result fields (ROSE's eval_results.json); ProverOnly files have no Refuter. */
function roseBranch(item: Record<string, unknown>): string | undefined {
  const prover = item.prover_result;
  const refuter = item.refuter_result;
  const hasRefuter = refuter !== null && refuter !== undefined;
  if ((prover === null || prover === undefined) && hasRefuter) return BRANCHES.match;
  if (prover === false) return BRANCHES.rejected;
  if (prover === true) return hasRefuter ? BRANCHES.refuted : BRANCHES.passed;
  return undefined;
}

/** Our judge's branch, named as ROSE's where they are the same. */
function judgeBranch(judge: Record<string, unknown>): string | undefined {
  const branch = typeof judge.branch === 'string' ? judge.branch : undefined;
  if (branch === 'results_match') return BRANCHES.match;
  const prover = isRecord(judge.prover) ? judge.prover.verdict : undefined;
  if (prover === false) return BRANCHES.rejected;
  if (prover === true) return isRecord(judge.refuter) ? BRANCHES.refuted : BRANCHES.passed;
  return branch;
}

/**
 * Verdicts: our `judge --json` (each question's judge.score), ROSE's eval_results.json (score == 1.0, as its
 * analyze.py), or an `eval --json` for EX (each question's ex; `use: 'ex'` reads EX from a judge JSON too).
 */
export function loadVerdicts(file: string, use?: 'judge' | 'ex'): VerdictFile {
  const data = parseJsonFile(file, readTextFile(file, 'verdict file'));
  if (Array.isArray(data)) {
    if (use)
      throw new InputFileError({
        file,
        message: `--use ${use}: this is a list (ROSE's eval_results.json), which has one verdict per item`,
      });
    if (data.length && !data.some((item) => isRecord(item) && 'score' in item)) {
      const labels = data.some((item) => isRecord(item) && 'label' in item);
      throw new InputFileError({
        file,
        message: `no item has a "score": not ROSE's eval_results.json${labels ? ' (it looks like a label file)' : ''}`,
      });
    }
    const items = data.filter(isRecord).map((item, i): Verdict => {
      const score = item.score;
      return {
        questionId: idOf(item.question_id) ?? `item ${i}`,
        sql: typeof item.predicted_sql === 'string' ? item.predicted_sql : undefined,
        verdict: typeof score === 'number' ? score === 1 : null,
        branch: roseBranch(item),
        why: typeof score === 'number' ? undefined : 'no numeric score',
      };
    });
    return { file, kind: 'rose', items };
  }
  if (!isRecord(data) || !Array.isArray(data.questions)) {
    throw new InputFileError({
      file,
      message:
        'expected ROSE\'s eval_results.json (a list), or a JSON report of `ves-lens judge` or `ves-lens eval` (an object with "questions")',
    });
  }
  const questions = data.questions.filter(isRecord);
  const hasJudge = questions.some((q) => 'judge' in q);
  if (use === 'judge' && !hasJudge)
    throw new InputFileError({ file, message: '--use judge: this report has no judge verdicts (an `eval` report?)' });
  const kind: VerdictKind = use ?? (hasJudge ? 'judge' : 'ex');
  const items = questions.map((q, i): Verdict => {
    const questionId = idOf(q.question_id) ?? `item ${i}`;
    const sql = typeof q.predicted_sql === 'string' ? q.predicted_sql : undefined;
    if (kind === 'ex') {
      if (q.outcome === 'skipped') return { questionId, sql, verdict: null, why: 'skipped (database not under --db-root)' };
      return {
        questionId,
        sql,
        verdict: q.ex === 1 ? true : q.ex === 0 ? false : null,
        why: q.ex === 1 || q.ex === 0 ? undefined : 'no ex',
      };
    }
    const judge = isRecord(q.judge) ? q.judge : undefined;
    if (!judge) return { questionId, sql, verdict: null, why: 'not judged (skipped)' };
    const score = judge.score;
    return {
      questionId,
      sql,
      verdict: score === 1 ? true : score === 0 ? false : null,
      branch: judgeBranch(judge),
      why: typeof judge.error === 'string' ? judge.error : undefined,
    };
  });
  return { file, kind, items };
}

export interface AgreementReport {
  kind: VerdictKind;
  stats: AgreementStats;
  /** The same statistics for each branch of the cascade, where the verdicts say which one each pair took. */
  by_branch: Record<string, AgreementStats>;
  /** Pairs matched by question_id alone, because the verdicts carry no SQL (an `eval` report). */
  matched_by_id_only: number;
  mismatches: {
    labels_without_verdict: string[];
    verdicts_without_label: string[];
    /** Same question_id, another predicted SQL: not the pair that was labelled. */
    sql_differs: { question_id: string; label_sql: string; verdict_sql: string }[];
    /** Verdicts that are no verdict (judge errors, skipped questions). */
    no_verdict: { question_id: string; why: string }[];
    repeated_verdicts: string[];
    unusable_labels: string[];
  };
}

/** Pairs each verdict with its label by question_id and SQL, and computes the agreement; every mismatch is listed. */
export function agreement(labels: LabelFile, verdicts: VerdictFile): AgreementReport {
  const byId = new Map<string, Labelled[]>();
  for (const item of labels.items) byId.set(item.questionId, [...(byId.get(item.questionId) ?? []), item]);
  const used = new Set<Labelled>();
  const seen = new Set<string>();
  const pairs: { label: boolean; verdict: boolean; branch?: string }[] = [];
  const mismatches: AgreementReport['mismatches'] = {
    labels_without_verdict: [],
    verdicts_without_label: [],
    sql_differs: [],
    no_verdict: [],
    repeated_verdicts: [],
    unusable_labels: labels.unusable,
  };
  let byIdOnly = 0;
  for (const v of verdicts.items) {
    const key = `${v.questionId}\u0000${v.sql === undefined ? '' : normalizeSql(v.sql)}`;
    if (seen.has(key)) {
      mismatches.repeated_verdicts.push(v.questionId);
      continue;
    }
    seen.add(key);
    const candidates = (byId.get(v.questionId) ?? []).filter((l) => !used.has(l));
    let match: Labelled | undefined;
    if (candidates.length === 0) {
      mismatches.verdicts_without_label.push(v.questionId);
      continue;
    }
    if (v.sql === undefined) {
      if (candidates.length === 1) {
        match = candidates[0];
        byIdOnly++;
      } else {
        mismatches.sql_differs.push({
          question_id: v.questionId,
          label_sql: `${candidates.length} labelled predictions`,
          verdict_sql: '(the verdict names no SQL)',
        });
        continue;
      }
    } else {
      const sql = normalizeSql(v.sql);
      match = candidates.find((l) => l.sql === undefined || normalizeSql(l.sql) === sql);
      if (!match) {
        mismatches.sql_differs.push({ question_id: v.questionId, label_sql: candidates[0].sql ?? '', verdict_sql: v.sql });
        continue;
      }
    }
    used.add(match);
    if (v.verdict === null) {
      mismatches.no_verdict.push({ question_id: v.questionId, why: v.why ?? 'no verdict' });
      continue;
    }
    pairs.push({ label: match.label, verdict: v.verdict, branch: v.branch });
  }
  const differs = new Set(mismatches.sql_differs.map((d) => d.question_id));
  for (const item of labels.items)
    if (!used.has(item) && !differs.has(item.questionId)) mismatches.labels_without_verdict.push(item.questionId);
  const by_branch: Record<string, AgreementStats> = {};
  const branches = [...new Set(pairs.map((p) => p.branch).filter((b): b is string => b !== undefined))];
  for (const branch of branches) by_branch[branch] = agreementStats(confusionOf(pairs.filter((p) => p.branch === branch)));
  return { kind: verdicts.kind, stats: agreementStats(confusionOf(pairs)), by_branch, matched_by_id_only: byIdOnly, mismatches };
}
