import { DatabaseConnection } from '../db/engine';

/**
 * True when the engine proves two queries do identical work (SQLite: the same compiled program, opcodes and
 * all operands, literals included): their time ratio is then 1 by construction and timing them would only
 * measure noise. Different text with the same program (spacing, case, aliases) counts; a different literal
 * does not. A query that does not compile is never "the same", nor is a pair the engine cannot judge.
 */
export async function sameProgram(db: DatabaseConnection, a: string, b: string): Promise<boolean> {
  return (await db.sameWork(a, b)) === 'same';
}
