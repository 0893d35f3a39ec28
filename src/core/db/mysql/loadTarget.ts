import { createConnection } from 'mysql2/promise';
import { LoadError } from '../postgres/loadFromSqlite';
import { isMysqlTarget, mysqlConnectionOptions, mysqlDatabase, redactMysqlText, registerMysqlUrl, withDatabase } from './connectionTarget';
import { BIRD_DATABASE } from './localServer';
import { loadIntoMysql, MysqlLoadReport } from './loadFromSqlite';

/** What `ves-lens load --to mysql://…` did: the report, the server's version and the target without its password. */
export interface MysqlServerLoad extends MysqlLoadReport {
  target: string;
  server: string;
}

/**
 * Loads the SQLite databases under `from` into the database a MySQL URL names (`BIRD` when it names none),
 * created when missing, as the official dump lays them out (loadFromSqlite.ts). The password never appears in
 * a message.
 */
export async function loadIntoMysqlServer(
  url: string,
  options: { from: string; dbIds?: readonly string[]; replace?: boolean; onTable?: (dbId: string, table: string) => void },
): Promise<MysqlServerLoad> {
  if (!isMysqlTarget(url)) throw new LoadError(`--to: ${redactMysqlText(url)} is not a MySQL URL; expected mysql://user@host:port/BIRD`);
  let target: string;
  try {
    target = registerMysqlUrl(url);
  } catch (error) {
    throw new LoadError(`--to: ${(error as Error).message}`);
  }
  const database = mysqlDatabase(target) ?? BIRD_DATABASE;
  const connection = await createConnection({
    ...mysqlConnectionOptions(withDatabase(target, undefined)),
    rowsAsArray: false,
    dateStrings: false,
  }).catch((error: Error) => {
    throw new LoadError(`--to: cannot connect to ${target}: ${redactMysqlText(error.message)}`);
  });
  try {
    const [[row]] = (await connection.query('SELECT VERSION() AS v')) as unknown as [{ v: string }[]];
    const report = await loadIntoMysql(connection, { ...options, database });
    return { ...report, target, server: row.v };
  } catch (error) {
    if (error instanceof LoadError) throw error;
    throw new LoadError(`--to ${target}: ${redactMysqlText((error as Error).message)}`);
  } finally {
    await connection.end().catch(() => undefined);
  }
}
