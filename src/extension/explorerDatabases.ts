import type { DatasetSummary } from '../shared/protocol';

/** A database row of the BIRD explorer: what its description and tooltip say. */
export interface DatabaseRow {
  dbId: string;
  present: boolean;
  questions: number;
  description: string;
  tooltip: string;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The explorer's database rows. With `flagged` (flagged questions per db_id, "show flagged questions only"), only
 * databases with a flagged question are listed, each with its flagged count: a missing database has nothing run,
 * so nothing flagged. A missing database says in its tooltip where it was looked for (a file; on a server, its schema or database).
 */
export function databaseRows(databases: DatasetSummary['databases'], dbRoot: string, flagged?: ReadonlyMap<string, number>): DatabaseRow[] {
  const listed = flagged ? databases.filter((d) => d.present && (flagged.get(d.dbId) ?? 0) > 0) : databases;
  return listed.map((database) => {
    const file = database.file;
    // On a server the summary says where it looked (a schema, a database, the tables of one database).
    const onServer = database.location !== undefined && database.location !== file;
    const questions = plural(database.questions, 'question');
    const description = flagged
      ? `${flagged.get(database.dbId)} flagged of ${questions}`
      : `${questions}${database.present ? '' : ' · database missing'}`;
    const tooltip = database.present
      ? `${database.dbId}: ${questions}\n${database.location ?? file}`
      : onServer
        ? `${database.dbId}: not on the server. Looked for ${database.location} (ves-lens load --from ${dbRoot} --to <url> builds it); ` +
          `its ${questions} cannot be scored, explained or audited until it is there.`
        : `${database.dbId}: the database file is missing. Looked for ${file} (BIRD's layout: <databases folder>/<db_id>/<db_id>.sqlite); ` +
          `its ${questions} cannot be scored, explained or audited until it is there.`;
    return { ...database, description, tooltip };
  });
}
