import * as fs from 'fs';
import * as path from 'path';

/** BIRD's layout: `<db_root>/<db_id>/<db_id>.sqlite`. */
export function databasePath(dbRoot: string, dbId: string): string {
  return path.join(dbRoot, dbId, `${dbId}.sqlite`);
}

export function databaseExists(dbRoot: string, dbId: string): boolean {
  return fs.existsSync(databasePath(dbRoot, dbId));
}
