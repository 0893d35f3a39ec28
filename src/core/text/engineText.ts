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
