/**
 * The one list of the fields a prediction file's items may hold their SQL in (the leaderboards and method repos
 * have used each), read by the prediction reader, the question reader's "this is a prediction file" hint, the
 * editor's document kinds (lenses) and the dataset picker: a file `eval` scores gets its lenses too.
 */

/** Fields only a prediction has, in the order they are looked for. */
export const PREDICTION_ONLY_FIELDS: readonly string[] = ['predicted_sql', 'pred_sql', 'prediction', 'predicted', 'pred'];

/** Every field a prediction's SQL may be in, in the order they are looked for: `sql` and `SQL` (a question file's gold) last. */
export const PREDICTION_SQL_FIELDS: readonly string[] = [...PREDICTION_ONLY_FIELDS, 'sql', 'SQL'];

/** Fields that carry the gold beside a prediction; `SQL` is the gold when another field holds the prediction. */
export const GOLD_FIELDS: readonly string[] = ['gold_sql', 'gold', 'ground_truth_sql', 'gt_sql', 'SQL'];

/** The separator the official format puts between SQL and db_id. */
export const BIRD_SEPARATOR = '\t----- bird -----\t';

/** A JSON key of a field only a prediction has (`"pred_sql":`), in a file's text. */
const PREDICTION_KEY = new RegExp(`"(${PREDICTION_ONLY_FIELDS.join('|')})"\\s*:`);

/** An eval report by its first bytes: the document `ves-lens eval --json` (and the editor's Export JSON) writes. */
export function looksLikeEvalReportText(head: string): boolean {
  return /^\s*\{\s*"tool"\s*:\s*\{\s*"name"\s*:\s*"ves-lens"/.test(head);
}

/**
 * Scored rows (an eval report's questions, or the bare list an earlier Report panel exported): each has an outcome
 * and an EX beside the SQL it scored. Scores of predictions, never predictions to score.
 */
const SCORED_ROW = /"outcome"\s*:\s*"[a-z_]+"[^{}]*"ex"\s*:\s*[01]|"ex"\s*:\s*[01][^{}]*"outcome"\s*:\s*"[a-z_]+"/;

/**
 * A prediction file by its first bytes: official `----- bird -----` entries, or a list whose items have a prediction
 * field. An eval report is not one, though its questions may carry the predicted SQL (issue 30: an exported report
 * got lenses and problems as a prediction file).
 */
export function looksLikePredictionText(head: string): boolean {
  const text = head.trimStart();
  if (looksLikeEvalReportText(text) || SCORED_ROW.test(text)) return false;
  if (text.startsWith('{')) return text.includes(BIRD_SEPARATOR.trim());
  return text.startsWith('[') && PREDICTION_KEY.test(text);
}
