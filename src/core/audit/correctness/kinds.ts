/**
 * What `audit --correctness` can find in a gold, each found on the data (see checkCorrectness.ts): the kinds,
 * their labels, which of them make the gold's result depend on the row order or the float summation order, and
 * how much each weighs in the audit's ranking. It imports nothing: the editor's panel and marks use it too.
 */

export type CorrectnessKind =
  /** LIMIT without ORDER BY picks some of more rows: which depends on the scan order. */
  | 'limit_without_order_by'
  /** ORDER BY … LIMIT cuts through rows with equal keys: which of them are kept depends on the scan order. */
  | 'limit_through_tie'
  /** A column beside an aggregate, neither aggregated nor grouped: SQLite takes it from whichever row it met. */
  | 'bare_column_with_aggregate'
  /** The result changes when unordered scans run in reverse, for a reason none of the above names. */
  | 'row_order'
  /** Float values whose last digits change with the summation order: EX compares floats exactly. */
  | 'float_summation_order'
  /** The ranking (ORDER BY … LIMIT) keeps a row whose key is NULL where the question asks for a highest/lowest. */
  | 'nulls_first_in_ranking'
  /** The ranking's key is numbers stored as text: they sort as text ('9' after '10'). */
  | 'numeric_text_order_key'
  /** A ratio or percentage computed with integer division: the fraction is cut off. */
  | 'integer_division_ratio'
  /** CURRENT_DATE, date('now'), random(): the result depends on when (or how often) it runs. */
  | 'nondeterministic_function'
  /** The gold returns no rows: every prediction that returns nothing is scored correct. */
  | 'no_rows'
  /** Most prediction files' runnable, mismatching predictions agree with each other and not with the gold. */
  | 'predictions_disagree';

export const CORRECTNESS_KINDS: readonly CorrectnessKind[] = [
  'limit_without_order_by',
  'limit_through_tie',
  'bare_column_with_aggregate',
  'row_order',
  'float_summation_order',
  'nulls_first_in_ranking',
  'numeric_text_order_key',
  'integer_division_ratio',
  'nondeterministic_function',
  'no_rows',
  'predictions_disagree',
];

export const CORRECTNESS_LABELS: Record<CorrectnessKind, string> = {
  limit_without_order_by: 'LIMIT without ORDER BY',
  limit_through_tie: 'LIMIT through a tie',
  bare_column_with_aggregate: 'bare column beside an aggregate',
  row_order: 'depends on the row order',
  float_summation_order: 'float summation order (EX-fragile)',
  nulls_first_in_ranking: 'NULL ranked first',
  numeric_text_order_key: 'numbers sorted as text',
  integer_division_ratio: 'integer division in a ratio',
  nondeterministic_function: 'reads the clock or random()',
  no_rows: 'returns no rows',
  predictions_disagree: 'predictions agree against it',
};

/** Kinds whose result changes with the physical row order (the scan order, a tie-break). */
export const ORDER_DEPENDENT_KINDS: ReadonlySet<CorrectnessKind> = new Set([
  'limit_without_order_by',
  'limit_through_tie',
  'bare_column_with_aggregate',
  'row_order',
]);

/** Kinds that make EX itself unreliable on the gold: exact float comparison of order-dependent sums. */
export const FRAGILE_KINDS: ReadonlySet<CorrectnessKind> = new Set(['float_summation_order']);

/**
 * Ranking weights: every correctness finding ranks above the efficiency findings (a measured speed-up weighs
 * 10·log2(ratio), under 100 up to a 1000× gain), below a gold that fails (1000). A result that depends on the
 * row order is a wrong gold for some prediction; no rows and float digits are weaker signals.
 */
export const CORRECTNESS_WEIGHTS: Record<CorrectnessKind, number> = {
  limit_without_order_by: 500,
  limit_through_tie: 480,
  bare_column_with_aggregate: 480,
  row_order: 460,
  predictions_disagree: 440,
  nulls_first_in_ranking: 420,
  numeric_text_order_key: 420,
  integer_division_ratio: 400,
  nondeterministic_function: 380,
  float_summation_order: 300,
  no_rows: 120,
};

/** The evidence on the data: what was run and what came out. Values are JSON values (jsonValue). */
export interface CorrectnessEvidence {
  /** What was run besides the gold as written: `reversed unordered scans`, `the SELECT without its LIMIT`, ... */
  check: string;
  /** The query run as evidence, when it is not the gold itself. */
  sql?: string;
  /** The gold's rows as written (the first few) and the rows of the check. */
  rows_as_written?: unknown[][];
  rows_of_check?: unknown[][];
  /** How many rows each returned (or the probe looked at). */
  row_counts?: { as_written: number; check: number };
  /** float_summation_order: the largest difference between matched values. */
  difference?: { absolute: number; relative: number };
  /** A ranking's boundary: the key where it is cut, how many rows share it, how many of those the LIMIT keeps. */
  boundary?: { key: unknown[]; tied_rows: number; kept: number; at_least?: boolean };
  /** predictions_disagree: the prediction files that agree, of how many. */
  files?: string[];
  of_files?: number;
  /** nondeterministic_function: the calls found. */
  calls?: string[];
  /** A subquery's finding: the gold run with the subquery's other pick in its place, and what it returned. */
  gold_with_other_pick?: { sql: string; rows: unknown[][] };
  /** A probe's finding that the reversed run confirms: that run's evidence. */
  reversed_scan?: CorrectnessEvidence;
}

/** One finding: its kind, one sentence for people, and the evidence on the data. */
export interface CorrectnessFinding {
  kind: CorrectnessKind;
  detail: string;
  evidence: CorrectnessEvidence;
}

/** How many gold are order-dependent or fragile, and per kind (only the kinds found). */
export interface CorrectnessSummary {
  checked: number;
  /** Gold with any finding. */
  flagged: number;
  order_dependent: number;
  fragile: number;
  by_kind: Partial<Record<CorrectnessKind, number>>;
  /** Why some checks could not run (the engine has no reversed scans, ...), once per audit. */
  notes: string[];
}

/** The summary of the findings of every gold checked (entries without `correctness` were not checked). */
export function correctnessSummary(
  entries: readonly { correctness?: readonly CorrectnessFinding[] }[],
  notes: readonly string[] = [],
): CorrectnessSummary {
  const checked = entries.filter((e) => e.correctness !== undefined);
  const byKind: Partial<Record<CorrectnessKind, number>> = {};
  for (const entry of checked) for (const kind of new Set(entry.correctness!.map((f) => f.kind))) byKind[kind] = (byKind[kind] ?? 0) + 1;
  const some = (set: ReadonlySet<CorrectnessKind>) => checked.filter((e) => e.correctness!.some((f) => set.has(f.kind))).length;
  return {
    checked: checked.length,
    flagged: checked.filter((e) => e.correctness!.length > 0).length,
    order_dependent: some(ORDER_DEPENDENT_KINDS),
    fragile: some(FRAGILE_KINDS),
    by_kind: byKind,
    notes: [...notes],
  };
}

/** `2 order-dependent, 3 EX-fragile (float summation order); by kind: 1 LIMIT without ORDER BY, ...` */
export function correctnessSummaryText(summary: CorrectnessSummary): string {
  const kinds = CORRECTNESS_KINDS.filter((k) => summary.by_kind[k]).map((k) => `${summary.by_kind[k]} ${CORRECTNESS_LABELS[k]}`);
  return (
    `correctness (${summary.checked} gold checked): ${summary.order_dependent} depend on the row order, ` +
    `${summary.fragile} EX-fragile (float summation order), ${summary.flagged} with any finding` +
    (kinds.length ? `; by kind: ${kinds.join(', ')}` : '')
  );
}
