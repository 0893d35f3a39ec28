import { readFileBytes } from '../../io/fileBytes';
import { DatabaseError } from '../database';
import type { DatabaseConnection } from '../engine';

/**
 * SQLite's own catalogue beyond the portable schema (readSchema): planner statistics, table kinds, objects and
 * file settings. Only features that are SQLite-only by nature read it: index advice's what-if copy and the
 * scaled copies.
 */

type Catalog = Pick<DatabaseConnection, 'all'>;

/** One row of sqlite_stat1: what ANALYZE measured for an index (or a table without one). */
export interface PlannerStatistic {
  tbl: string | null;
  idx: string | null;
  stat: string | null;
}

const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** Whether the database holds planner statistics (it was ANALYZEd). */
export async function hasPlannerStatistics(db: Catalog): Promise<boolean> {
  return (await db.all("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'")).length > 0;
}

/** The planner statistics (sqlite_stat1), or undefined when the database was never ANALYZEd. */
export async function plannerStatistics(db: Catalog): Promise<PlannerStatistic[] | undefined> {
  if (!(await hasPlannerStatistics(db))) return undefined;
  return (await db.all('SELECT tbl, idx, stat FROM sqlite_stat1')).map((row) => ({
    tbl: text(row.tbl),
    idx: text(row.idx),
    stat: text(row.stat),
  }));
}

/** A schema object other than a table (index, view, trigger), in sqlite_master order. */
export interface CatalogObject {
  type: string;
  name: string;
  table: string;
  sql: string;
}

/** The file's settings a copy must repeat: ATTACH needs the same encoding; the rest is kept as the source has it. */
export interface FileSettings {
  encoding: string;
  pageSize: number;
  userVersion: number;
  applicationId: number;
}

/** What a copy of a SQLite file needs besides its tables (scale/scaleDatabase.ts). */
export interface CopySource {
  /** Lower-case names of virtual tables (their module rebuilds its shadow tables). */
  virtual: Set<string>;
  /** Lower-case names of the shadow tables of virtual tables. */
  shadow: Set<string>;
  /** Indexes, views and triggers, in sqlite_master order. */
  objects: CatalogObject[];
  settings: FileSettings;
  analyzed: boolean;
}

/** A file's text encoding as its header names it (offset 56: 1 UTF-8, 2 UTF-16le, 3 UTF-16be), for a build that answers PRAGMA encoding with no row. */
function headerEncoding(file: string): string | undefined {
  const header = readFileBytes(file, 56, 4);
  return header.length === 4 ? ({ 1: 'UTF-8', 2: 'UTF-16le', 3: 'UTF-16be' } as Record<number, string>)[header.readUInt32BE(0)] : undefined;
}

/** What a copy of `file` (open as `db`) must repeat. */
export async function readCopySource(db: Catalog, file: string): Promise<CopySource> {
  const setting = async (pragma: string) => Object.values((await db.all(`PRAGMA ${pragma}`))[0] ?? {})[0];
  // The WebAssembly build answers PRAGMA encoding with no row; the file's header says it too.
  const encoding = (await setting('encoding')) ?? headerEncoding(file);
  if (encoding === undefined) throw new DatabaseError(`${file}: its text encoding could not be read`);
  const listed = await db.all("SELECT name, type FROM pragma_table_list WHERE schema = 'main'");
  const named = (type: string) => new Set(listed.filter((t) => t.type === type).map((t) => String(t.name).toLowerCase()));
  const objects = await db.all(
    'SELECT type, name, tbl_name, sql FROM sqlite_master ' +
      "WHERE type <> 'table' AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
  );
  return {
    virtual: named('virtual'),
    shadow: named('shadow'),
    objects: objects.map((o) => ({ type: String(o.type), name: String(o.name), table: String(o.tbl_name), sql: String(o.sql) })),
    settings: {
      encoding: String(encoding),
      pageSize: Number(await setting('page_size')),
      userVersion: Number(await setting('user_version')),
      applicationId: Number(await setting('application_id')),
    },
    analyzed: await hasPlannerStatistics(db),
  };
}
