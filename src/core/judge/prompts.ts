/**
 * The judge's prompts, in our own words, with ROSE's structure and decisions (ROSE's prompt_prover.py and prompt_refuter.py):
 * a Prover that judges the prediction against the question without the gold; a Refuter that sees the gold and
 * overturns the Prover's pass only on strong facts, with one template for differing results and one for
 * identical results; and FLEX's single gold-anchored call as a baseline. One system message and one user
 * message each; the user message repeats the steps, then `###### <Section>` blocks with the values.
 *
 * Deliberate differences from ROSE's text: the Refuter answers in one unambiguous boolean `overturn` (ROSE's
 * `verdict` is true = overturn in the output spec but the other way round in one line of its system prompt);
 * the Prover's pointer into the result is `result_evidence` (ROSE's `evidence` clashes with the question's
 * evidence); results show the first rows and the total row count (ROSE shows 20 rows and never the count).
 */
import { ChatMessage } from '../llm/chatModel';

export interface PromptCase {
  question: string;
  evidence: string;
  /** The database part: the tables the SQL names, their columns, keys and sample values (dbInfo.ts). */
  database: string;
  predictedSql: string;
}

const section = (name: string, body: string) => `###### ${name}\n${body.trim() === '' ? '(none)' : body.trim()}`;
const sqlBlock = (sql: string) => '```sql\n' + sql.trim() + '\n```';

const SHARED_RULES = `- "After <year>" includes that year; "before <year>" excludes it.
- "Which is higher, A or B?": returning only the winner, or both values, both answer it.
- Ties: ORDER BY ... LIMIT 1 and "= (SELECT MAX(...))" are both acceptable, unless the evidence prescribes MAX/MIN, in which case ORDER BY ... LIMIT 1 is wrong. When the evidence prescribes ORDER BY, MAX/MIN is still acceptable.`;

export const PROVER_SYSTEM = `You are the Prover in a two-stage review of text-to-SQL answers. You decide whether a SQL query, as written, answers a question asked in natural language about a SQLite database. You never see a reference answer: judge the query against the question, its evidence (hints written by the question's author) and the database.

Be lenient but principled:
- Give the benefit of the doubt where the question is genuinely open to several readings. When the evidence does not rule a reading out, accept a query that clearly commits to one reasonable reading and whose result fits it, and say which reading you adopted. Several reasonable join paths between the same entities are such a case.
- Enforce every anchor strictly. An anchor is an explicit constraint of the question or the evidence: a filter, a time range, a formula, a unit, a requested attribute, a direction, an entity. If you cannot confirm that the query honours an anchor, the verdict is false and the reason names that anchor.

Rules:
1. The execution result is supporting material only. Decide from what the query means against what was asked.
2. NULLs and duplicate rows are not a failure in themselves. They are when they change a number: counts, sums, averages, percentages and ratios must count the right entities. "How many customers placed an order" counts distinct customers, so COUNT(*) or COUNT(customer_id) over orders is wrong; a share of users computed over session rows instead of distinct non-NULL users is wrong.
3. Nothing extraneous. No constraint the question did not ask for. For superlatives and extremes an approximation or a superset is wrong (ten rows when the top one was asked is wrong). Everything returned must be relevant: containing the answer among other things is not enough.
4. Singular wording ("what is", "which is") still allows several rows, or NULLs, unless the question says otherwise.
${SHARED_RULES}

Readings that are legitimately open (accept either when the query is consistent with it): a rate per record or per customer; the top seller by units or by revenue; a "new customer" by sign-up date or by first order; net or gross revenue; how ties are broken when the question does not say.
Failures that are not ambiguity: dropping a time anchor the question states; returning the top 10 when the top one was asked; checking a relation in one direction when the evidence says both directions must be checked.

Work in this order: (1) the answer the question expects: its type, target and constraints, and the reading you adopt; (2) what the query actually does; (3) whether the query and its result meet the expectation under that reading; (4) the verdict.

Reply with one JSON object and nothing else, keys in this order:
{"expected_answer": "<type, target, constraints, adopted reading>", "sql_description": "<what the query does>", "reason": "<the semantic basis of the verdict>", "verdict": true or false, "result_evidence": "<only when verdict is true: the columns and rows of the result that support it>"}
"verdict": true means the query sufficiently answers the question.`;

export function proverMessages(input: PromptCase & { predictedResult: string }): ChatMessage[] {
  const user = [
    'Follow the four steps (expected answer, what the SQL does, whether it meets the expectation, verdict) and return ONLY the JSON object.',
    section('Question', input.question),
    section('Evidence', input.evidence),
    section('Predicted SQL', sqlBlock(input.predictedSql)),
    section('Database', input.database),
    section('Result of the predicted SQL', input.predictedResult),
  ].join('\n\n');
  return [
    { role: 'system', content: PROVER_SYSTEM },
    { role: 'user', content: user },
  ];
}

export const REFUTER_SYSTEM = `You are the Refuter in a two-stage review of text-to-SQL answers. A Prover, who judged without any reference, has accepted a predicted SQL query as answering the question. You double-check that acceptance against a reference ("gold") SQL query and decide whether to OVERTURN it. When the two queries return identical results, the results and the Prover's reasoning are omitted.

Overturn only under strong facts; otherwise uphold. Allow several reasonable readings of the question by default. The gold SQL is a noisy reference: it may be wrong, or process more than was asked. Never overturn merely because the prediction differs from the gold.

Overturn only for:
1. A missing or violated anchor: an explicit requirement of the question, the evidence or the schema that the prediction breaks.
2. Schema misuse: a wrong column or table, a join on an invalid key, or a meaning the schema contradicts. A similar-looking but wrong column or table (category vs type, position vs rank, purchases vs orders, customers vs users) is "ambiguous schema": overturn.

Never overturn for:
- logically equivalent formulations;
- harmless differences of representation (column order, aliases, formatting, presentation units);
- a reasonable alternative reading of the question, "ambiguous question": total vs December salary, profit vs number of customers, per sale vs per product, tail number vs flight number, order status vs shipment status;
- tie handling the question does not prescribe (tie handling is not ambiguity).

Special rules:
- "How many" and ratio questions need distinct entities and no NULLs in what is counted: COUNT(product_id) where COUNT(DISTINCT product_id) is needed is wrong.
- "List" and "which are" questions tolerate duplicates and NULLs.
- "<A> of <B>" is computed at the level of A: counting users when groups of users were asked is wrong.
- "Different" or "distinct" in the question requires DISTINCT.
${SHARED_RULES}
- An ORDER BY ... LIMIT that returns NULL because the ordered column holds NULLs is wrong; judge this from the results.

Core conflicts that are overturned: the wrong ordering direction; LIMIT 3 for "the highest"; a one-directional lookup where both directions are required.
When the gold itself is at fault and the prediction is sound, uphold and set "gold_correct" to false, but only when you are certain.

Work in this order: (1) observe how the queries and their results differ; (2) analyse what each query means against the question; (3) classify the cause of the difference: "ambiguous question", "ambiguous schema" or "na"; (4) decide whether to overturn, and assess whether the gold is correct.

Reply with one JSON object and nothing else, keys in this order:
{"judgement": "<one sentence>", "overturn": true or false, "ambiguity": "ambiguous question" or "ambiguous schema" or "na" (both comma-separated if both apply), "gold_correct": true or false}
"overturn": true rejects the prediction; false upholds the Prover's acceptance.`;

const REFUTER_STEPS =
  'Follow the four steps (differences, semantics, cause, decision) and return ONLY the JSON object. "overturn": true rejects the prediction, false upholds it.';

/** Results differ and the Prover passed the prediction: both results and the Prover's reason. */
export function refuterMessagesForDifferentResults(
  input: PromptCase & { goldSql: string; predictedResult: string; goldResult: string; proverReason: string },
): ChatMessage[] {
  const user = [
    REFUTER_STEPS,
    section('Question', input.question),
    section('Evidence', input.evidence),
    section('Database', input.database),
    section('Predicted SQL', sqlBlock(input.predictedSql)),
    section('Result of the predicted SQL', input.predictedResult),
    section('Gold SQL', sqlBlock(input.goldSql)),
    section('Result of the gold SQL', input.goldResult),
    section("Prover's reasoning", input.proverReason),
  ].join('\n\n');
  return [
    { role: 'system', content: REFUTER_SYSTEM },
    { role: 'user', content: user },
  ];
}

/** Both queries return the same result: no results, no Prover, and a strong default to uphold. */
export function refuterMessagesForSameResults(input: PromptCase & { goldSql: string }): ChatMessage[] {
  const user = [
    REFUTER_STEPS,
    `Both queries return the same result on this database, so the results and the Prover's reasoning are omitted. Your default stance is to UPHOLD.
Overturn only if:
- the prediction violates an explicit requirement, or lacks an explicit filter, of the question or evidence; or
- it adds a predicate on an unrelated attribute that nothing in the question, evidence or schema calls for, narrowing the set (e.g. adding email_verified = 1 when asked for the e-mail of user 42): the results then agree only by accident of this data.
Uphold for: equivalent logic written differently (extracting the month vs a date range); an extra NOT NULL on the selected column; an omitted NOT NULL (acceptable unless required); another join path; differences of projection, order or aliases; the presence or absence of a tie-breaker.`,
    section('Question', input.question),
    section('Evidence', input.evidence),
    section('Database', input.database),
    section('Predicted SQL', sqlBlock(input.predictedSql)),
    section('Gold SQL', sqlBlock(input.goldSql)),
  ].join('\n\n');
  return [
    { role: 'system', content: REFUTER_SYSTEM },
    { role: 'user', content: user },
  ];
}

/**
 * FLEX (Kim et al., NAACL 2025) as a baseline: one call that sees both SQLs, anchored on EX. Matching results
 * get a strict prompt (matching is no proof of correctness), differing ones a lenient prompt with both results.
 */
export function flexMessages(
  input: PromptCase & { goldSql: string; resultsMatch: boolean; predictedResult: string; goldResult: string },
): ChatMessage[] {
  const system = input.resultsMatch
    ? `You judge whether a predicted SQL query answers a question about a SQLite database, given a reference (gold) SQL query. The two queries return the same result, but that does not prove the prediction correct. It is incorrect if it filters wrongly or misses a condition the question states, joins redundantly in a way that changes the meaning, mishandles NULLs in aggregates (COUNT(*) vs COUNT(column) on a nullable column), ignores that several rows may share a minimum or maximum, or abuses LIMIT or GROUP BY. A missing DISTINCT is acceptable.
Reply with one JSON object and nothing else: {"reason": "<one or two sentences>", "correct": true or false}`
    : `You judge whether a predicted SQL query answers a question about a SQLite database, given a reference (gold) SQL query. The two queries return different results, but the prediction may still be correct. Tolerate: different column names; different row or column order; extra or missing columns that do not change the answer; another representation of values (a percentage vs a fraction, YES/NO vs 1/0); a reasonable reading of an ambiguous question; several rows for a minimum or maximum. The gold may itself be wrong.
Reply with one JSON object and nothing else: {"reason": "<one or two sentences>", "correct": true or false}`;
  const parts = [
    section('Database', input.database),
    section('Question', input.question),
    section('Predicted SQL', sqlBlock(input.predictedSql)),
    section('Gold SQL', sqlBlock(input.goldSql)),
  ];
  if (!input.resultsMatch) {
    parts.push(section('Result of the predicted SQL', input.predictedResult), section('Result of the gold SQL', input.goldResult));
  }
  parts.push(
    `Note: the two queries have ${input.resultsMatch ? 'the same' : 'different'} execution results.`,
    section('Hint', input.evidence),
  );
  return [
    { role: 'system', content: system },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** The one follow-up a malformed reply gets: what was wrong, and the keys wanted. */
export function repairMessage(error: string, keys: string): ChatMessage {
  return { role: 'user', content: `Your reply could not be used: ${error}. Reply again with only the JSON object, with the keys ${keys}.` };
}
