import { EvalTask } from '../bird/tasks';
import { openDatabase } from '../db/engines';
import { DatabaseSource, EngineDescription } from '../db/source';
import { identifierName, tokensOf } from '../sql/lexer';

/**
 * A PostgreSQL server in the one-database layout (every db_id's tables in one schema, as the official dump) has no
 * place per db_id to look for, so a database that was never loaded would count as there and each of its questions
 * as a gold error ("relation does not exist"), scored 0. Here a db_id counts as there only when the server holds
 * at least one of the tables its gold SQL reads; the others are missing and skipped, as a missing SQLite file is.
 */
export async function withLoadedDatabasesOnly(
  source: DatabaseSource,
  engine: EngineDescription,
  tasks: readonly Pick<EvalTask, 'question' | 'goldSql'>[],
): Promise<DatabaseSource> {
  const goldByDatabase = new Map<string, string[]>();
  for (const { question, goldSql } of tasks)
    if (question.dbId) goldByDatabase.set(question.dbId, [...(goldByDatabase.get(question.dbId) ?? []), goldSql ?? '']);
  if (engine.runs !== 'server' || engine.layout !== 'one-database' || goldByDatabase.size === 0) return source;
  const [anyDbId] = goldByDatabase.keys();
  const db = await openDatabase(source.targetFor(anyDbId));
  let onServer: Set<string>;
  try {
    // MySQL: the URL's database (`BIRD`); PostgreSQL: the schemas of the search path.
    const here = engine.engine === 'mysql' ? 'table_schema = DATABASE()' : 'table_schema = ANY (current_schemas(false))';
    const rows = await db.all(`SELECT lower(table_name) AS name FROM information_schema.tables WHERE ${here}`);
    onServer = new Set(rows.map((row) => String(row.name)));
  } finally {
    await db.close();
  }
  const missing = new Set<string>();
  for (const [dbId, golds] of goldByDatabase) {
    const tables = new Set(golds.flatMap(tablesRead));
    if (tables.size > 0 && ![...tables].some((table) => onServer.has(table))) missing.add(dbId);
  }
  if (missing.size === 0) return source;
  return { ...source, exists: async (dbId) => !missing.has(dbId) && (await source.exists(dbId)) };
}

/** The tables a query names after FROM or JOIN (lower-case, unquoted; a schema prefix dropped). */
function tablesRead(sql: string): string[] {
  const tokens = [...tokensOf(sql)].filter((token) => token.kind !== 'space' && token.kind !== 'comment');
  const tables: string[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const keyword = tokens[i].kind === 'word' ? tokens[i].text.toUpperCase() : '';
    if (keyword !== 'FROM' && keyword !== 'JOIN') continue;
    let j = i + 1;
    // schema.table: the last part
    while (tokens[j + 1]?.text === '.' && (tokens[j + 2]?.kind === 'word' || tokens[j + 2]?.kind === 'quoted')) j += 2;
    if (tokens[j].kind === 'word' || tokens[j].kind === 'quoted') tables.push(identifierName(tokens[j].text).toLowerCase());
  }
  return tables;
}
