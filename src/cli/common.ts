import packageJson from '../../package.json';

export const TOOL_NAME = 'ves-lens';
export const TOOL_VERSION: string = packageJson.version;

/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}
