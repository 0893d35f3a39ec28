import { DatabaseConnection } from '../db/engine';
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
