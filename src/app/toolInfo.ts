/**
 * The `tool` block every JSON report starts with, for every face: VES Lens's name and version, and the SQLite
 * library that ran the queries (a result can depend on its version).
 */
import packageJson from '../../package.json';
import { sqliteVersion } from '../core/db/engines';
import type { ToolInfo } from '../core/eval/reportJson';

export const TOOL_NAME = 'ves-lens';
export const TOOL_VERSION: string = packageJson.version;

export async function toolInfo(): Promise<ToolInfo> {
  return { name: TOOL_NAME, version: TOOL_VERSION, sqlite: await sqliteVersion() };
}
