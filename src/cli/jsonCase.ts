/**
 * Every JSON the command line writes has snake_case field names. Core's types are camelCase where the editor
 * reads them (plan nodes, index advice, timing results): they are converted here, at the JSON output boundary,
 * and nowhere else, so the editor pages and the language server keep core's own types.
 *
 * Some objects are keyed by data, not by field names: the summary's groups (difficulties), techniques by name,
 * scale factors, table names, R-VES buckets. Their keys are kept as they are (a difficulty `veryHard` stays
 * `veryHard`); only the values under them are converted. Each command names those places in its JSON shape.
 */

/**
 * A place in a document, in output (snake_case) names: fields separated by `.`, `[]` for every item of an
 * array, `*` for any one field. `summary.*.techniques` is the techniques of every summary group.
 */
export type JsonPath = string;

/** The places of one command's JSON whose keys are data (kept verbatim). */
export interface JsonShape {
  dataKeyed: readonly JsonPath[];
}

/** A field name as snake_case: `realTable` → `real_table`, `logSe` → `log_se`, `sqlURL` → `sql_url`. */
export function snakeCaseKey(key: string): string {
  // Only a camelCase identifier is a field name to convert: `EX`, `F1`, `0.75`, `Node Type` are kept.
  if (!/^[a-z][A-Za-z0-9]*$/.test(key) || !/[A-Z]/.test(key)) return key;
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

type Segment = string; // a field name, `[]` (an array item) or, in a pattern, `*`

function parsePath(path: JsonPath): Segment[] {
  return path.split('.').flatMap((part) => {
    const field = part.replace(/(\[\])+$/, '');
    const items = (part.length - field.length) / 2;
    return [...(field ? [field] : []), ...Array<Segment>(items).fill('[]')];
  });
}

function matches(pattern: readonly Segment[], at: readonly Segment[]): boolean {
  return pattern.length === at.length && pattern.every((segment, i) => segment === at[i] || (segment === '*' && at[i] !== '[]'));
}

/**
 * A copy of `value` with every field name in snake_case, except the keys of the objects at `shape.dataKeyed`
 * (their values are still converted). What JSON.stringify would do to the value is kept: toJSON is called,
 * functions and undefined fields are left to it. Two fields that would end with the same name are a bug in the
 * shape of the output, and said so rather than one silently replacing the other.
 */
export function snakeCaseJson(value: unknown, shape: JsonShape = { dataKeyed: [] }): unknown {
  const patterns = shape.dataKeyed.map(parsePath);
  const convert = (inner: unknown, at: Segment[]): unknown => {
    if (inner === null || typeof inner !== 'object') return inner;
    const withJson = inner as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return convert(withJson.toJSON(), at);
    if (Array.isArray(inner)) return inner.map((item) => convert(item, [...at, '[]']));
    const keepKeys = patterns.some((pattern) => matches(pattern, at));
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(inner)) {
      const name = keepKeys ? key : snakeCaseKey(key);
      if (Object.prototype.hasOwnProperty.call(out, name))
        throw new Error(`JSON output: fields "${key}" and another both become "${name}" at ${at.join('.') || 'the top'}`);
      out[name] = convert(field, [...at, name]);
    }
    return out;
  };
  return convert(value, []);
}

/** Eval's report (also merge's, and the reports compare, agree, audit read): groups, techniques, scales, buckets. */
const EVAL_REPORT: readonly JsonPath[] = [
  'summary',
  'summary.*.techniques',
  'summary.robustness.ex_fragile_by_kind',
  'questions[].techniques',
  'questions[].rves_bucket_probabilities',
  'questions[].time_ratio_by_scale',
  'questions[].counterexample.rows_by_table',
];

/** The data-keyed places of each command's JSON (a command that has none passes no shape). */
export const JSON_SHAPES = {
  eval: { dataKeyed: EVAL_REPORT },
  merge: { dataKeyed: EVAL_REPORT },
  compare: { dataKeyed: ['runs[].summary', 'runs[].summary.*.techniques', 'deltas', 'deltas[]'] },
  audit: { dataKeyed: ['correctness.by_kind', 'entries[].growth.by_scale', 'ranked[].growth.by_scale'] },
  judge: { dataKeyed: ['summary', 'summary.branches'] },
  agree: { dataKeyed: ['by_branch'] },
  hints: { dataKeyed: ['statements[].hints[].verdict.growth.by_scale'] },
  optimize: { dataKeyed: ['statements[].rejected_counts', 'scaled_copies'] },
} as const satisfies Record<string, JsonShape>;
