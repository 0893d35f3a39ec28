import { DatabaseConnection } from '../db/engine';
import { SqlDialect } from '../sql/statements';
import { analysisBoundNote } from '../sql/textBounds';

/**
 * True when the engine proves two queries do identical work (SQLite: the same compiled program, opcodes and
 * all operands, literals included): their time ratio is then 1 by construction and timing them would only
 * measure noise. Different text with the same program (spacing, case, aliases) counts; a different literal
 * does not. A query that does not compile is never "the same", nor is a pair the engine cannot judge, nor one
 * too large to compare programs in bounded memory (then the pair is timed, as the official scripts time it).
 */
export async function sameProgram(db: DatabaseConnection, a: string, b: string): Promise<boolean> {
  if (analysisBoundNote(a, 'same program') || analysisBoundNote(b, 'same program')) return false;
  return (await db.sameWork(a, b)) === 'same';
}

/** What made a pair "the same work" on each engine, as the notes say it: "gold and prediction <phrase>". */
export function sameWorkPhrase(dialect: SqlDialect): string {
  if (dialect === 'postgres') return 'have the same plan, expressions and literals (EXPLAIN VERBOSE)';
  if (dialect === 'mysql') return 'have the same plan and rewritten statement (EXPLAIN FORMAT=JSON, EXPLAIN EXTENDED)';
  return 'compile to the same SQLite program';
}
