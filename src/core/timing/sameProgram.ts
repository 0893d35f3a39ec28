import { ReadOnlyDatabase } from '../db/database';

/** The compiled program of a query as text: every opcode with all its operands (EXPLAIN's listing). */
async function program(db: ReadOnlyDatabase, body: string): Promise<string> {
  const ops = await db.all(`EXPLAIN ${body}`);
  return ops.map((op) => [op.opcode, op.p1, op.p2, op.p3, op.p4, op.p5].map((v) => (v === null ? '∅' : String(v))).join('\u0001')).join('\n');
}

/**
 * True when two queries compile to exactly the same SQLite program (opcodes and all operands, literals
 * included): they then do identical work, so their time ratio is 1 by construction and timing them would only
 * measure noise. Different text with the same program (spacing, case, aliases) counts; a different literal
 * does not. A query that does not compile is never "the same".
 */
export async function sameProgram(db: ReadOnlyDatabase, a: string, b: string): Promise<boolean> {
  try {
    return (await program(db, a)) === (await program(db, b));
  } catch {
    return false;
  }
}
