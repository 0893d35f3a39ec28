/**
 * Which gold of a dataset fits the engine (issue 30: switching vesLens.engine to postgres kept the SQLite gold, and
 * question 239's `SUBSTR(atom_id,-2)` marked a right prediction a mismatch). A gold file's dialect is read from
 * its queries (core/sql/dialect.ts); the golds beside it (mini-dev ships mini_dev_sqlite_gold, _postgresql_gold and
 * _mysql_gold in one folder) are read too, so the editor can offer the one of the engine's dialect.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadGold } from '../core/bird/gold';
import { Dialect, DIALECT_NAMES, DIALECTS, readDialect } from '../core/sql/dialect';

export type { Dialect };

/** Readings by file, kept while the file is unchanged (a status bar refresh must not read 500 queries again). */
const readings = new Map<string, { mtimeMs: number; size: number; dialect: Dialect | undefined }>();

/** The dialect a gold file's queries read as; undefined when they say too little or the file is not a gold file. */
export function goldDialect(file: string): Dialect | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const known = readings.get(file);
  if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.dialect;
  let dialect: Dialect | undefined;
  try {
    dialect = readDialect(loadGold(file).entries.flatMap((entry) => (entry ? [entry.sql] : []))).dialect;
  } catch {
    dialect = undefined; // not a gold file: it fits no engine
  }
  readings.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, dialect });
  return dialect;
}

/** The gold files beside `goldFile` (same folder, `.sql`) whose queries read as `dialect`, by name. */
export function goldsBeside(goldFile: string, dialect: Dialect): string[] {
  const folder = path.dirname(goldFile);
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.toLowerCase().endsWith('.sql') && /gold/i.test(name))
    .map((name) => path.join(folder, name))
    .filter((file) => path.resolve(file) !== path.resolve(goldFile) && goldDialect(file) === dialect)
    .sort();
}

/** The gold in use, as the status bar names it: `mini_dev_postgresql_gold.sql (PostgreSQL)`, or the questions' own SQL. */
export function goldLabel(goldFile: string | undefined): string {
  if (!goldFile) return "gold: the questions' SQL";
  const dialect = goldDialect(goldFile);
  return `gold ${path.basename(goldFile)} (${dialect ? DIALECT_NAMES[dialect] : 'dialect not told'})`;
}

/** A gold of another dialect than the engine's: what it reads as, the golds beside it that fit, and what to say. */
export interface GoldMismatch {
  goldFile: string;
  dialect: Dialect;
  engine: Dialect;
  fitting: string[];
  message: string;
}

/** The attached gold against the engine (`sqlite`, `postgres`, `mysql`): undefined when it fits or says too little. */
export function goldMismatch(goldFile: string | undefined, engine: string): GoldMismatch | undefined {
  if (!goldFile || !(DIALECTS as readonly string[]).includes(engine)) return undefined;
  const dialect = goldDialect(goldFile);
  if (!dialect || dialect === engine) return undefined;
  const fitting = goldsBeside(goldFile, engine as Dialect);
  const said = `the attached gold ${path.basename(goldFile)} reads as ${DIALECT_NAMES[dialect]} SQL, but vesLens.engine is ${engine}: its queries would fail or return other rows on ${DIALECT_NAMES[engine as Dialect]}, and right predictions would be scored as mismatches`;
  const advice = fitting.length
    ? `; ${path.basename(fitting[0])} beside it reads as ${DIALECT_NAMES[engine as Dialect]} SQL`
    : `; no ${DIALECT_NAMES[engine as Dialect]} gold was found beside it: attach one, or set vesLens.engine to ${dialect}`;
  return { goldFile, dialect, engine: engine as Dialect, fitting, message: said + advice };
}
