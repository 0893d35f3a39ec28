/** The fields of an engine's description (core/db/source.ts's EngineDescription) the label reads. */
export interface EngineNaming {
  engine: string;
  version: string;
  product?: string;
  runs: 'embedded' | 'server';
  build?: string;
}

/**
 * What runs the SQL, short, for a status bar: `SQLite 3.45.1`, `SQLite 3.54.1 WebAssembly`, `PostgreSQL 15.10`,
 * `PostgreSQL 17.4 embedded`, `MariaDB 10.11.19`. The version number only (a server says `15.18 (Debian
 * 15.18-0+deb12u1)` or `10.11.19-MariaDB-0+deb12u1`); the engine's whole line belongs in a tooltip.
 */
export function engineShortLabel(engine: EngineNaming | null | undefined, sqliteVersion: string): string {
  if (!engine || engine.engine === 'sqlite') return `SQLite ${engine?.version ?? sqliteVersion}${engine?.build ? ` ${engine.build}` : ''}`;
  const version = engine.version.split(/[ -]/)[0];
  if (engine.engine === 'mysql') return `${engine.product ?? 'MySQL'} ${version}`;
  return `PostgreSQL ${version}${engine.runs === 'embedded' ? ' embedded' : ''}`;
}

/**
 * A one-line account of what ran the SQL: `SQLite 3.45.1`, `PostgreSQL 15.10 (server postgresql://…, one-database
 * layout)`, `PostgreSQL 18.6 (embedded PGlite, WASM, loaded from sample, one-database layout)` or `MariaDB
 * 10.11.19-MariaDB-0+deb12u1 (local server, loaded from sample, one-database layout)`.
 */
export function engineLine(description: EngineNaming & { location: string; layout?: string }): string {
  if (description.engine === 'sqlite') return `SQLite ${description.version}${description.build ? ` (${description.build})` : ''}`;
  if (description.engine === 'mysql')
    return `${description.product ?? 'MySQL'} ${description.version} (${description.build ? `${description.build}, loaded from ${description.location}` : `server ${description.location}`}, one-database layout)`;
  const where = description.build
    ? `${description.build}, loaded from ${description.location}`
    : `${description.runs} ${description.location}`;
  return `PostgreSQL ${description.version} (${where}, ${description.layout ?? 'one-database'} layout)`;
}
