// What the embedded PostgreSQL's tests share: the sample's database in a folder of a test's own, and rows read
// through the engine's own streaming.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Row } from '../../src/core/db/database';
import { DatabaseConnection } from '../../src/core/db/engine';
import { SAMPLE_SUPERHERO, tempDir } from '../helpers';

export const READ_ONLY: [string, string][] = [['default_transaction_read_only', 'on']];

/** The sample's superhero database, copied to a folder of the test's own (a test changes its modification time). */
export function sampleRoot(): string {
  const root = tempDir('ves-lens-pglite-root-');
  fs.mkdirSync(path.join(root, 'superhero'));
  fs.copyFileSync(SAMPLE_SUPERHERO, path.join(root, 'superhero', 'superhero.sqlite'));
  return root;
}

export async function rows(
  db: DatabaseConnection,
  sql: string,
  limits: Partial<Parameters<DatabaseConnection['streamRows']>[2]> = {},
): Promise<Row[]> {
  const out: Row[] = [];
  await db.streamRows(sql, (row) => out.push(row), { maxRows: 10_000, ...limits });
  return out;
}
