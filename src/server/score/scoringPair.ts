import type { Question } from '../../core/bird/questions';
import { ServerContext } from '../context';
import type { OpenDatabase } from '../../core/db/connectionCache';
import { QueryTargets } from '../queryTargets';

/** What the Score panel's requests (Score, "Look for a database where they differ") work on: one prediction and its gold. */
export interface ScoringPair {
  /** When the request began (performance.now()), for its elapsed time. */
  started: number;
  /** The prediction: the request's SQL, or the statement at the editor's cursor. */
  sql: string;
  question: Question;
  database: OpenDatabase;
  /** The question's gold SQL ('' when the gold file lacks it: scored as a gold error). */
  goldSql: string;
}

/** Checks trust, then finds the prediction, its question, the question's database (opened) and its gold. */
export async function openScoringPair(
  context: ServerContext,
  targets: QueryTargets,
  params: { sql?: string; uri?: string; offset?: number; questionId?: number | string; questionIndex?: number },
): Promise<ScoringPair> {
  context.requireTrust();
  const started = performance.now();
  const { sql } = targets.requestedUnit(params);
  const { question, target } = await targets.pairQuestion(params);
  const database = await context.state.database(target);
  return { started, sql, question, database, goldSql: context.state.goldSql(question) ?? '' };
}
