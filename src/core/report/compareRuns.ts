import { InputFileError } from '../bird/problems';
import { EvalReportJson, LoadedReport, questionKeys, ReportQuestion, reportMetrics } from '../eval/reportFile';
import { DEFAULT_BOOTSTRAP, mcnemarExact, McNemar, pairedBootstrap, PairedDelta } from './compareStats';
import { fragileDeltaNotes } from './fragileDelta';

/** One row of the comparison table: a metric's value in each run and each later run's delta from the first. */
export interface MetricRow {
  /** `ex`, `f1`, `ves`, `rves`, `gold_ms`, `pred_ms`, `judge`, `technique:<name>`. */
  key: string;
  label: string;
  /** `score`: ×100 as the summaries; `ms`: milliseconds. */
  unit: 'score' | 'ms';
  /** The metric in each run over the questions it is compared on (null where a run lacks it). */
  values: (number | null)[];
  /** For each run after the first: its value minus the first's, with a 95 % paired bootstrap interval. */
  deltas: (PairedDelta | null)[];
  /** Questions the row is over (all paired questions for scores; those timed in every run for ms). */
  n: number;
}

export type ChangeKind = 'now_correct' | 'now_wrong' | 'much_faster' | 'much_slower';
export const CHANGE_KINDS: readonly ChangeKind[] = ['now_correct', 'now_wrong', 'much_faster', 'much_slower'];

export interface QuestionChange {
  index: number;
  question_id: number | string;
  db_id: string;
  difficulty: string;
  /** Outcome in the first run and in the later one. */
  from: string;
  to: string;
  /** much faster / slower: the later prediction's time ratio over the first's (above 1: faster than before). */
  factor?: number;
  /** The first run's and the later run's time ratio (t_gold / t_pred). */
  ratios?: [number, number];
}

/** What one later run changed against the first. */
export interface RunDelta {
  file: string;
  label: string;
  ex_mcnemar: McNemar;
  changes: Record<ChangeKind, QuestionChange[]>;
}

export interface RunComparison {
  runs: { file: string; label: string; summary: EvalReportJson['summary']; metrics: string[]; timing: unknown }[];
  rows: MetricRow[];
  /** One per run after the first, against the first. */
  versus: RunDelta[];
  /** Questions in every file, and those compared (scored, not skipped, in every run). */
  questions: number;
  compared: number;
  notes: string[];
  bootstrap: { seed: number; resamples: number; confidence: number };
  /** A time ratio must change by this factor (and the repeat intervals separate) to count as much faster / slower. */
  muchFactor: number;
  /**
   * Every report was timed (VES or R-VES asked, or times recorded): only then are times, time ratios and much
   * faster / slower compared; otherwise those rows and lists are left out and a note says so once.
   */
  timed: boolean;
  /** Every compared question with its result in each run, in question order (for the HTML report). */
  table: { key: string; results: ReportQuestion[] }[];
}

export interface CompareOptions {
  seed?: number;
  resamples?: number;
  muchFactor?: number;
}

const LABELS: Record<string, string> = {
  ex: 'EX',
  f1: 'Soft-F1',
  ves: 'VES',
  rves: 'R-VES',
  gold_ms: 'gold ms (mean)',
  pred_ms: 'predicted ms (mean)',
  judge: 'judge',
};

/** A technique score of a question, from `techniques.<name>`: a number, or an object's `score` / `f1` / `F1`. */
function techniqueScores(q: ReportQuestion): Map<string, number> {
  const scores = new Map<string, number>();
  const techniques = q.techniques;
  if (!techniques || typeof techniques !== 'object') return scores;
  for (const [name, value] of Object.entries(techniques)) {
    if (typeof value === 'number') scores.set(name, value);
    else if (value && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      const score = ['score', 'f1', 'F1', 'ex', 'EX'].map((k) => object[k]).find((v) => typeof v === 'number');
      if (typeof score === 'number') scores.set(name, score);
    }
  }
  return scores;
}

/** The ratio a report's question is timed by: R-VES's full execution where present, else the headline one. */
export function comparableRatio(q: ReportQuestion): { ratio: number; low: number; high: number } | null {
  if (q.rves_time_ratio !== null && q.rves_time_ratio !== undefined && q.rves_time_ratio > 0) {
    const [low, high] = q.rves_time_ratio_interval ?? [q.rves_time_ratio, q.rves_time_ratio];
    return { ratio: q.rves_time_ratio, low, high };
  }
  if (q.time_ratio !== null && q.time_ratio !== undefined && q.time_ratio > 0) {
    const [low, high] = q.time_ratio_interval ?? [q.time_ratio, q.time_ratio];
    return { ratio: q.time_ratio, low, high };
  }
  return null;
}

/** True when a report holds timing: VES or R-VES was asked, or some question has a time (a report of EX and Soft-F1 has none). */
export function hasTiming(report: EvalReportJson): boolean {
  if (reportMetrics(report).some((m) => m === 'ves' || m === 'rves')) return true;
  return report.questions.some((q) => comparableRatio(q) !== null || (q.gold_ms !== null && q.gold_ms !== undefined));
}

/** The kinds of change a comparison lists: much faster / slower only when every run was timed. */
export function changeKindsOf(comparison: Pick<RunComparison, 'timed'>): readonly ChangeKind[] {
  return comparison.timed ? CHANGE_KINDS : CHANGE_KINDS.filter((kind) => kind !== 'much_faster' && kind !== 'much_slower');
}

/** Milliseconds of a question's timing; same-program pairs were never timed (their 0 ms would pull means down). */
function milliseconds(q: ReportQuestion, key: 'gold_ms' | 'pred_ms'): number | null {
  if (q.same_program || q[key] === null || q[key] === undefined) return null;
  return q[key] as number;
}

function describeQuestion(q: ReportQuestion): string {
  return `question ${q.question_id} (${q.db_id})`;
}

/**
 * Checks that every report scores the same questions (same ids and databases); refuses otherwise with a message
 * that names the files and the first question that differs. Returns each file's questions by key.
 */
function alignQuestions(runs: readonly LoadedReport[]): { keys: string[]; byRun: Map<string, ReportQuestion>[] } {
  const byRun = runs.map((run) => {
    const keys = questionKeys(run.report.questions);
    return new Map(keys.map((key, i) => [key, run.report.questions[i]]));
  });
  const first = runs[0];
  const keys = questionKeys(first.report.questions);
  for (const [i, run] of runs.entries()) {
    if (i === 0) continue;
    const missing = keys.filter((k) => !byRun[i].has(k));
    const extra = [...byRun[i].keys()].filter((k) => !byRun[0].has(k));
    if (missing.length === 0 && extra.length === 0) continue;
    const shardHint = [first, run].some((r) => r.report.inputs?.shard)
      ? ' (a shard of an evaluation: combine the shards with `ves-lens merge` first)'
      : '';
    const example = missing.length
      ? `${describeQuestion(byRun[0].get(missing[0])!)} is only in ${first.file}`
      : `${describeQuestion(byRun[i].get(extra[0])!)} is only in ${run.file}`;
    throw new InputFileError({
      file: run.file,
      message: `does not cover the same questions as ${first.file}: ${run.report.questions.length} questions against ${first.report.questions.length}, ${missing.length} missing and ${extra.length} not in the first file (${example})${shardHint}; compare reports of the same question file`,
    });
  }
  return { keys, byRun };
}

/**
 * Compares eval reports of the same questions: each metric in each run, and for every later run its difference
 * from the first with a seeded 95 % paired bootstrap interval; McNemar's exact p for EX; and which questions
 * became correct, wrong, much faster or much slower. Skipped questions (in any run) are left out, and said.
 */
export function compareRuns(runs: readonly LoadedReport[], options: CompareOptions = {}): RunComparison {
  if (runs.length < 2) throw new Error('compare needs at least two reports');
  const bootstrap = {
    ...DEFAULT_BOOTSTRAP,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.resamples ? { resamples: options.resamples } : {}),
  };
  const muchFactor = options.muchFactor ?? 2;
  const { keys, byRun } = alignQuestions(runs);
  const notes: string[] = [];
  const compared = keys.filter((key) => byRun.every((run) => run.get(key)!.outcome !== 'skipped'));
  if (compared.length < keys.length)
    notes.push(`${keys.length - compared.length} questions skipped in at least one run (database not found) are left out of every row`);
  const metricsOf = runs.map((run) => reportMetrics(run.report));
  const timedRuns = runs.map((run) => hasTiming(run.report));
  const timed = timedRuns.every(Boolean);
  if (!timed) {
    const untimed = runs.filter((_, r) => !timedRuns[r]).map((run) => run.label);
    const which = untimed.length === runs.length ? 'these reports' : untimed.join(', ');
    // The untimed reports' own metrics: a timed report beside them must not lend them VES and R-VES.
    const scores = [...new Set(metricsOf.filter((_, r) => !timedRuns[r]).flat())].map((m) => LABELS[m] ?? m).join(', ');
    notes.push(`no timing in ${which} (${scores} only): times, time ratios and much faster / slower are not compared`);
  }
  const at = (run: number) => compared.map((key) => byRun[run].get(key)!);

  const rows: MetricRow[] = [];
  /** A row from a per-question value (null: the question does not count in this row for any run). */
  const addRow = (
    key: string,
    label: string,
    unit: MetricRow['unit'],
    value: (q: ReportQuestion, run: number) => number | null,
    available: (run: number) => boolean,
  ) => {
    const present = runs.map((_, r) => available(r));
    if (!present.some(Boolean)) return;
    const usable = compared.filter((k) => runs.every((_, r) => !present[r] || value(byRun[r].get(k)!, r) !== null));
    const series = runs.map((_, r) => (present[r] ? usable.map((k) => value(byRun[r].get(k)!, r) as number) : null));
    const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
    const scale = unit === 'score' ? 100 : 1;
    const values = series.map((xs) => (xs ? mean(xs) : null)).map((v) => (v === null ? null : v * scale));
    const deltas = series.slice(1).map((xs) => {
      if (!xs || !series[0]) return null;
      const d = pairedBootstrap(
        series[0].map((x) => x * scale),
        xs.map((x) => x * scale),
        bootstrap,
      );
      return d;
    });
    rows.push({ key, label, unit, values, deltas, n: usable.length });
  };

  for (const metric of ['ex', 'f1', 'ves', 'rves'] as const) {
    addRow(
      metric,
      LABELS[metric],
      'score',
      (q) => (metric === 'ex' ? q.ex : (q[metric] ?? 0)),
      (r) => metricsOf[r].includes(metric),
    );
  }
  for (const key of timed ? (['gold_ms', 'pred_ms'] as const) : []) {
    addRow(
      key,
      LABELS[key],
      'ms',
      (q) => milliseconds(q, key),
      (r) => at(r).some((q) => milliseconds(q, key) !== null),
    );
  }
  const judged = (q: ReportQuestion) => (q.judge && typeof q.judge.score === 'number' ? q.judge.score : null);
  addRow('judge', LABELS.judge, 'score', judged, (r) => at(r).some((q) => judged(q) !== null));
  const techniqueNames = [...new Set(runs.flatMap((_, r) => at(r).flatMap((q) => [...techniqueScores(q).keys()])))].sort();
  for (const name of techniqueNames) {
    const score = (q: ReportQuestion) => techniqueScores(q).get(name) ?? null;
    addRow(`technique:${name}`, name, 'score', score, (r) => at(r).some((q) => score(q) !== null));
  }

  const versus: RunDelta[] = runs.slice(1).map((run, i) => {
    const r = i + 1;
    const a = at(0);
    const b = at(r);
    const changes: Record<ChangeKind, QuestionChange[]> = { now_correct: [], now_wrong: [], much_faster: [], much_slower: [] };
    b.forEach((qb, j) => {
      const qa = a[j];
      const base = {
        index: qb.index,
        question_id: qb.question_id,
        db_id: qb.db_id,
        difficulty: qb.difficulty,
        from: qa.outcome,
        to: qb.outcome,
      };
      if (qa.ex === 0 && qb.ex === 1) changes.now_correct.push(base);
      else if (qa.ex === 1 && qb.ex === 0) changes.now_wrong.push(base);
      else if (timed && qa.ex === 1 && qb.ex === 1) {
        const ra = comparableRatio(qa);
        const rb = comparableRatio(qb);
        if (!ra || !rb) return;
        // Both ratios share the gold, so their quotient is t_pred(first) / t_pred(later); it counts only when
        // the repeat intervals do not overlap, so a re-run would not take it back.
        const factor = rb.ratio / ra.ratio;
        const change = { ...base, factor, ratios: [ra.ratio, rb.ratio] as [number, number] };
        if (factor >= muchFactor && rb.low > ra.high) changes.much_faster.push(change);
        else if (factor <= 1 / muchFactor && rb.high < ra.low) changes.much_slower.push(change);
      }
    });
    changes.much_faster.sort((x, y) => y.factor! - x.factor!);
    changes.much_slower.sort((x, y) => x.factor! - y.factor!);
    return {
      file: run.file,
      label: run.label,
      ex_mcnemar: mcnemarExact(
        a.map((q) => q.ex),
        b.map((q) => q.ex),
      ),
      changes,
    };
  });

  const timings = runs.map((run) => run.report.inputs?.timing);
  if (timed && new Set(timings.map(String)).size > 1)
    notes.push(`the runs were timed differently (${timings.join(' vs ')}): VES, R-VES and times compare within one timing mode only`);
  const sqlite = runs.map((run) => run.report.tool?.sqlite);
  if (new Set(sqlite.map(String)).size > 1)
    notes.push(`the runs used different SQLite versions (${sqlite.join(', ')}): plans and times may differ for that reason alone`);
  notes.push(
    ...fragileDeltaNotes(
      runs.map((run) => run.label),
      runs.map((_, r) => at(r)),
    ),
  );

  return {
    runs: runs.map((run, r) => ({
      file: run.file,
      label: run.label,
      summary: run.report.summary,
      metrics: metricsOf[r],
      timing: run.report.inputs?.timing ?? null,
    })),
    rows,
    versus,
    questions: keys.length,
    compared: compared.length,
    notes,
    bootstrap,
    muchFactor,
    timed,
    table: compared.map((key) => ({ key, results: byRun.map((run) => run.get(key)!) })),
  };
}

/** The `compare --json` document: `runs`, `deltas` (B − A for two files; each later − the first for more) and `ex_mcnemar_p`. */
export function comparisonJson(comparison: RunComparison) {
  const deltasOf = (i: number) =>
    Object.fromEntries(
      comparison.rows.map((row) => {
        const d = row.deltas[i];
        return [row.key, d ? { delta: d.delta, low: d.low, high: d.high, n: d.n } : null];
      }),
    );
  const changesOf = (i: number) => Object.fromEntries(changeKindsOf(comparison).map((kind) => [kind, comparison.versus[i].changes[kind]]));
  const two = comparison.versus.length === 1;
  return {
    runs: comparison.runs.map((run) => ({ file: run.file, summary: run.summary })),
    questions: comparison.questions,
    compared: comparison.compared,
    timed: comparison.timed,
    metrics: comparison.rows.map((row) => ({ key: row.key, label: row.label, unit: row.unit, values: row.values, n: row.n })),
    deltas: two ? deltasOf(0) : comparison.versus.map((v, i) => ({ file: v.file, versus: comparison.runs[0].file, ...deltasOf(i) })),
    ex_mcnemar_p: two ? comparison.versus[0].ex_mcnemar.p : comparison.versus.map((v) => v.ex_mcnemar.p),
    ex_discordant: two
      ? { only_first: comparison.versus[0].ex_mcnemar.onlyA, only_second: comparison.versus[0].ex_mcnemar.onlyB }
      : comparison.versus.map((v) => ({ file: v.file, only_first: v.ex_mcnemar.onlyA, only_this: v.ex_mcnemar.onlyB })),
    changes: two ? changesOf(0) : comparison.versus.map((v, i) => ({ file: v.file, ...changesOf(i) })),
    bootstrap: { ...comparison.bootstrap, much_factor: comparison.muchFactor },
    notes: comparison.notes,
  };
}
