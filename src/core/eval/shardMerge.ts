import * as path from 'path';
import { InputFileError } from '../bird/problems';
import { EvalReportJson, LoadedReport, ReportQuestion } from './reportFile';
import { evalReport, EvalInputs } from './reportJson';
import { summarize } from './evalSummary';
import { Metric, METRICS, QuestionResult } from './types';
import { mergedGoldCacheCounts } from './goldResultCache';

/** Inputs every shard of one evaluation must share (files by name: shards may run on machines with other paths). */
const SAME_INPUTS = ['metrics', 'timing', 'gold_from', 'timeout_s', 'max_rows', 'prediction_format', 'pairing'] as const;
const SAME_FILE_NAMES = ['questions', 'predictions', 'gold'] as const;

/** The headline problem `eval` adds for a database on which every gold fails: recomputed over the merged questions. */
export const UNUSABLE_DATABASE = /: the gold SQL of all \d+ questions on it fails \(first: /;

export interface MergedShards {
  /** The merged report, in the structure one unsharded `eval --json` writes (inputs without `shard`). */
  report: EvalReportJson;
  /** Things worth saying that do not stop the merge (different tool or SQLite versions, top-level keys dropped). */
  notes: string[];
}

const fail = (file: string, where: string, message: string): never => {
  throw new InputFileError({ file, where, message });
};

/** The report's other keys, so that `tool` and `complete` lead as in the report `eval` writes. */
function withoutTool<T extends { tool?: unknown }>(report: T): Omit<T, 'tool'> {
  const { tool: _tool, ...rest } = report;
  return rest;
}

/** First occurrence of each string, in order. */
function unique(lists: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of lists)
    for (const item of list)
      if (!seen.has(item)) {
        out.push(item);
        seen.add(item);
      }
  return out;
}

/**
 * Combines the reports of `eval --shard 1/n` ... `n/n` into the report one run over the whole question file
 * writes: questions back in question-file order, the summary recomputed from them, problems united (the
 * whole-file ones are the same in every shard). Refuses, naming the file and key, shards of different
 * evaluations, a shard given twice, a missing shard, or a report that is no shard. `extraHeadline` adds
 * headline problems computed over all questions (the command passes eval's unusable-database check).
 */
export function mergeShardReports(
  shards: readonly LoadedReport[],
  extraHeadline?: (questions: QuestionResult[], inputs: Record<string, unknown>) => string[],
): MergedShards {
  if (shards.length === 0) throw new Error('no shard reports to merge');
  const notes: string[] = [];
  const first = shards[0];
  for (const s of shards)
    if (!s.report.inputs?.shard)
      fail(s.file, 'inputs.shard', 'not a shard report: write shards with `ves-lens eval --shard i/n --json ...`');
  const count = first.report.inputs!.shard!.count;
  const total = first.report.inputs!.shard!.of_questions;
  const byIndex = new Map<number, LoadedReport>();
  for (const s of shards) {
    const info = s.report.inputs!.shard!;
    if (info.count !== count)
      fail(s.file, 'inputs.shard.count', `a shard of ${info.count}, but ${first.file} is a shard of ${count}: shards of different splits`);
    if (info.of_questions !== total)
      fail(
        s.file,
        'inputs.shard.of_questions',
        `${info.of_questions} questions in its question file, ${first.file} ${total}: shards of different question files`,
      );
    // An interrupted shard (`"complete": false`) holds only part of its questions: finish it first.
    if ((s.report as { complete?: unknown }).complete === false)
      fail(s.file, 'complete', 'an interrupted shard (complete: false): finish it with `ves-lens eval --resume ...` first');
    const other = byIndex.get(info.index);
    if (other) fail(s.file, 'inputs.shard.index', `shard ${info.index}/${count} again (also ${other.file})`);
    byIndex.set(info.index, s);
    const inputs = s.report.inputs as Record<string, unknown>;
    const firstInputs = first.report.inputs as Record<string, unknown>;
    for (const key of SAME_INPUTS) {
      if (JSON.stringify(inputs[key]) !== JSON.stringify(firstInputs[key]))
        fail(
          s.file,
          `inputs.${key}`,
          `${JSON.stringify(inputs[key])}, but ${JSON.stringify(firstInputs[key])} in ${first.file}: shards of different evaluations`,
        );
    }
    for (const key of SAME_FILE_NAMES) {
      const name = (v: unknown) => (typeof v === 'string' ? path.basename(v) : (v ?? null));
      if (name(inputs[key]) !== name(firstInputs[key]))
        fail(
          s.file,
          `inputs.${key}`,
          `${JSON.stringify(inputs[key])}, but ${JSON.stringify(firstInputs[key])} in ${first.file}: shards of different evaluations`,
        );
    }
    s.report.questions.forEach((q, i) => {
      if ((q.index - (info.index - 1)) % count !== 0)
        fail(s.file, `questions[${i}].index`, `question ${q.question_id} at position ${q.index} is not in shard ${info.index}/${count}`);
    });
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) {
    throw new InputFileError({
      file: first.file,
      message: `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: give all ${count} shard reports`,
    });
  }
  const versions = new Set(shards.map((s) => `${s.report.tool?.version} / SQLite ${s.report.tool?.sqlite}`));
  if (versions.size > 1) notes.push(`the shards ran different versions (${[...versions].join('; ')}): the merged report names the first's`);

  // Each shard must hold its whole part: the one that does not is named, with the first question it lacks.
  for (const [index, s] of byIndex) {
    const expected = Math.max(0, Math.ceil((total - (index - 1)) / count));
    const held = new Set(s.report.questions.map((q) => q.index));
    if (held.size === expected && s.report.questions.length === expected) continue;
    const lacking = Array.from({ length: expected }, (_, k) => index - 1 + k * count).find((position) => !held.has(position));
    fail(
      s.file,
      'questions',
      `${s.report.questions.length} questions, but shard ${index}/${count} of ${total} questions has ${expected}` +
        `${lacking !== undefined ? ` (the question at position ${lacking} is missing)` : ' (a question is repeated)'}: this shard report is incomplete; run the shard again`,
    );
  }
  const questions: ReportQuestion[] = shards.flatMap((s) => s.report.questions).sort((a, b) => a.index - b.index);

  const inputs = { ...(first.report.inputs as Record<string, unknown>) };
  delete inputs.shard;
  // Each shard counted its own gold-result cache: the merged run's counts are their sums.
  const goldCache = mergedGoldCacheCounts(shards.map((s) => (s.report.inputs as Record<string, unknown> | undefined)?.gold_cache));
  if (goldCache === undefined) delete inputs.gold_cache;
  else inputs.gold_cache = goldCache;
  const metrics = ((inputs.metrics as string[] | undefined) ?? METRICS).filter((m): m is Metric => METRICS.includes(m as Metric));
  const summary = summarize(questions, metrics);
  const merged = evalReport(first.report.tool as never, inputs as unknown as EvalInputs, summary, [], questions);
  const isHeadline = (p: string) => !UNUSABLE_DATABASE.test(p);
  const headline = [
    ...unique(shards.map((s) => (s.report.headline_problems ?? []).filter(isHeadline))),
    ...(extraHeadline?.(questions, inputs) ?? []),
  ];
  const headlineSet = new Set(shards.flatMap((s) => s.report.headline_problems ?? []));
  const others = unique(shards.map((s) => (s.report.problems ?? []).filter((p) => !headlineSet.has(p))));
  const known = new Set(Object.keys(merged));
  const dropped = [...new Set(shards.flatMap((s) => Object.keys(s.report)).filter((k) => !known.has(k)))];
  if (dropped.length) notes.push(`top-level keys not merged (no rule to combine them): ${dropped.join(', ')}`);
  // Reports that say whether they are complete (every shard was, or it was refused above) say so merged too.
  const completeness = shards.some((s) => 'complete' in s.report) ? { complete: true } : {};
  return {
    report: {
      tool: merged.tool,
      ...completeness,
      ...withoutTool(merged),
      inputs,
      problems: [...headline, ...others],
      headline_problems: headline,
      questions,
    } as EvalReportJson,
    notes,
  };
}
