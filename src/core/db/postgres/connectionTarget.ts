import * as fs from 'fs';
import * as path from 'path';
import { ClientConfig } from 'pg';
import { parse } from 'pg-connection-string';
import { redactSecrets, rememberSecret } from '../../text/redact';

/**
 * PostgreSQL targets: connection URLs (`postgresql://user@host:port/database?…`) that never hold a password.
 * A password given in a URL is taken out of it when the URL is registered (registerPostgresUrl) and kept
 * here, in memory only, so a target can be printed, logged or written to a report as it is. Everything else
 * libpq reads is honoured through node-postgres: PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGOPTIONS,
 * PGSSLMODE, PGAPPNAME, PGCONNECT_TIMEOUT and ~/.pgpass (PGPASSFILE).
 */

const passwords = new Map<string, string>();

export function isPostgresTarget(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

function parsedUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new Error(`not a connection URL: ${redactText(url)} (expected postgresql://user@host:port/database)`);
  }
}

/** The URL without its password (what every message and report shows). */
export function redactUrl(url: string): string {
  if (!isPostgresTarget(url)) return redactSecrets(url);
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return redactSecrets(parsed.toString());
  } catch {
    return redactSecrets(url);
  }
}

/** A text with every password in it masked (text/redact.ts: any URL shape, `password=…`, passwords seen before). */
export const redactText = redactSecrets;

/**
 * Takes the password out of a URL, keeps it for connections to the returned target, and returns the target. A URL
 * without one forgets the target's earlier password (the editor's password was cleared).
 */
export function registerPostgresUrl(url: string): string {
  const parsed = parsedUrl(url);
  const password = decodeURIComponent(parsed.password) || parsed.searchParams.get('password') || '';
  const target = redactUrl(url);
  if (password) {
    passwords.set(target, password);
    rememberSecret(password);
  } else passwords.delete(target);
  return target;
}

/** Another target on the same server (another database, or options added), with the same password. */
export function deriveTarget(target: string, change: (url: URL) => void): string {
  const parsed = parsedUrl(target);
  change(parsed);
  const derived = parsed.toString();
  const password = passwords.get(target);
  if (password) passwords.set(derived, password);
  else passwords.delete(derived);
  return derived;
}

/** `-c name=value` as PostgreSQL's options string takes it (spaces and backslashes escaped). */
export function serverSetting(name: string, value: string): string {
  return `-c ${name}=${value.replace(/[\\ ]/g, (c) => `\\${c}`)}`;
}

/**
 * libpq's default when neither the URL nor PGHOST names a host: the server's unix socket in Debian's folder,
 * then upstream's, else TCP on localhost (node-postgres's own default).
 */
function defaultHost(port: number): string | undefined {
  for (const folder of ['/var/run/postgresql', '/tmp']) if (fs.existsSync(path.join(folder, `.s.PGSQL.${port}`))) return folder;
  return undefined;
}

/**
 * node-postgres's settings for a target: what the URL says, its password, the libpq environment for the rest,
 * and `settings` added to the server options (the user's own options, from the URL or PGOPTIONS, kept first).
 */
export function clientConfig(target: string, settings: readonly string[]): ClientConfig {
  const fromUrl = parse(target) as Record<string, unknown>;
  const config: Record<string, unknown> = {};
  // Empty fields are left out, so node-postgres falls back to the environment (PGUSER, PGHOST, ...) as libpq does.
  for (const [key, value] of Object.entries(fromUrl)) if (value !== '' && value !== null && value !== undefined) config[key] = value;
  const password = passwords.get(target);
  if (password) config.password = password;
  if (!config.host && !process.env.PGHOST) {
    const host = defaultHost(Number(config.port ?? process.env.PGPORT ?? 5432));
    if (host) config.host = host;
  }
  const userOptions = (config.options as string | undefined) ?? process.env.PGOPTIONS;
  config.options = [userOptions, ...settings].filter(Boolean).join(' ');
  config.fallback_application_name = 'ves-lens';
  return config as ClientConfig;
}
