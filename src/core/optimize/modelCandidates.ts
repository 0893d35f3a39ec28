/**
 * Candidates from a chat model (the judge's OpenAI-compatible endpoint, or VS Code's language models in the
 * editor): given the schema of the tables read, the statement, its plan and time, the best form found so far and
 * the forms that failed (with why), it proposes rewrites as JSON. Nothing it says is trusted: each proposal goes
 * through the same checks as a rule's (same rows, counterexample search, measured faster) and is labelled
 * `model`, never proven by a rule.
 */
import { SchemaInfo } from '../db/schema';
import { askForJson } from '../judge/ask';
import { ChatMessage, ChatModel } from '../llm/chatModel';
import { tablesRead } from '../sql/scope';
import { SqlDialect } from '../sql/statements';
import { fmtMs } from '../text/speedText';

export interface FailedCandidate {
  sql: string;
  reason: string;
}

export interface ModelProposal {
  sql: string;
  why: string;
}

export interface ModelRequest {
  sql: string;
  schema: SchemaInfo;
  plan: string[];
  originalMs: number;
  scale: number;
  bestSoFar?: { sql: string; ms: number };
  failed: FailedCandidate[];
  dialect: SqlDialect;
  signal?: AbortSignal;
}

/** Most proposals taken from one reply. */
const MAX_PROPOSALS = 5;

const SYSTEM = `You rewrite SQL queries to run faster while returning exactly the same rows (the same set, the same number of each row, and the same order when the query has ORDER BY). You may not add indexes or change the database. Typical gains: decorrelating subqueries, computing an aggregate once per key and joining it, replacing a join used only as a filter by IN or EXISTS, pre-aggregating a table before a join that multiplies rows, filtering earlier. Answer with one JSON object: {"candidates": [{"sql": "<the whole rewritten query>", "why": "<one sentence>"}]}, at most ${MAX_PROPOSALS} candidates, no other text.`;

export function modelMessages(request: ModelRequest): ChatMessage[] {
  const read = tablesRead(
    request.sql,
    [...request.schema.tables.values()].map((t) => t.name),
  );
  const ddl = [...read.values()]
    .map((name) => request.schema.tables.get(name.toLowerCase()))
    .filter((t) => t !== undefined)
    .map((t) => `${t!.sql};${t!.rowCount !== undefined ? ` -- ${t!.rowCount} rows` : ''}`);
  const lines = [
    `Dialect: ${request.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'}.`,
    '',
    'Tables read:',
    ...ddl,
    '',
    'Query:',
    request.sql,
    '',
    `It takes ${fmtMs(request.originalMs)} on a copy of the database with ${request.scale}× the rows. Its plan:`,
    ...(request.plan.length ? request.plan : ['(no plan)']),
  ];
  if (request.bestSoFar) lines.push('', `Fastest equivalent form found so far (${fmtMs(request.bestSoFar.ms)}):`, request.bestSoFar.sql);
  if (request.failed.length) {
    lines.push('', 'Already tried and rejected (do not propose these again):');
    for (const f of request.failed) lines.push(`- ${f.sql.replace(/\s+/g, ' ')}\n  rejected: ${f.reason}`);
  }
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: lines.join('\n') },
  ];
}

/** Asks the model once (one repair follow-up for an unreadable reply): its proposals, or why there are none. */
export async function askModelForRewrites(
  model: ChatModel,
  request: ModelRequest,
): Promise<{ candidates: ModelProposal[]; error?: string; fatal?: boolean }> {
  try {
    const answer = await askForJson<ModelProposal[]>(
      model,
      modelMessages(request),
      (value) => {
        const list = value.candidates;
        if (!Array.isArray(list)) return { ok: false, error: 'no "candidates" list' };
        const proposals = list
          .filter(
            (c): c is Record<string, unknown> =>
              typeof c === 'object' && c !== null && typeof (c as Record<string, unknown>).sql === 'string',
          )
          .map((c) => ({ sql: String(c.sql).trim().replace(/;\s*$/, ''), why: typeof c.why === 'string' ? c.why : '' }))
          .filter((c) => c.sql.length > 0)
          .slice(0, MAX_PROPOSALS);
        return { ok: true, value: proposals };
      },
      { keys: '"candidates": [{"sql", "why"}]', signal: request.signal },
    );
    if (answer.value) return { candidates: answer.value };
    return { candidates: [], error: (answer.error ?? 'no answer').replace(/^judge_error/, 'unreadable reply') };
  } catch (error) {
    return { candidates: [], error: `the model could not be reached: ${(error as Error).message}`, fatal: true };
  }
}
