import packageJson from '../../package.json';
import { ReadOnlyDatabase } from '../core/db/database';

export const TOOL_NAME = 'ves-lens';
export const TOOL_VERSION: string = packageJson.version;

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** The `tool` block every JSON report starts with: name, version, and the SQLite that ran the queries. */
export async function toolInfo(): Promise<{ name: string; version: string; sqlite: string }> {
  return { name: TOOL_NAME, version: TOOL_VERSION, sqlite: await ReadOnlyDatabase.sqliteVersion() };
}
