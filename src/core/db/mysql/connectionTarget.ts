import type { ConnectionOptions } from 'mysql2';

/**
 * MySQL targets: connection URLs (`mysql://user@host:port/database`, `?socket=/path` for a unix socket) that
 * never hold a password. A password given in a URL is taken out of it when the URL is registered
 * (registerMysqlUrl) and kept here, in memory only, so a target can be printed, logged or written to a report
 * as it is; MYSQL_PWD fills it in when the URL gives none, as the mysql client does.
 */

const passwords = new Map<string, string>();

export function isMysqlTarget(target: string): boolean {
  return /^(mysql|mariadb):\/\//i.test(target);
}

/** A text with every `user:password@` and `password=…` of a MySQL URL in it masked. */
export function redactMysqlText(text: string): string {
  let out = text.replace(/((?:mysql|mariadb):\/\/[^:/@\s]*):[^@\s]*@/gi, '$1:***@').replace(/(password=)[^&\s]*/gi, '$1***');
  for (const password of passwords.values()) if (password.length >= 4) out = out.split(password).join('***');
  return out;
}

function parsedUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new Error(`not a connection URL: ${redactMysqlText(url)} (expected mysql://user@host:port/database)`);
  }
}

/** The URL without its password (what every message and report shows). */
export function redactMysqlUrl(url: string): string {
  if (!isMysqlTarget(url)) return url;
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return redactMysqlText(url);
  }
}

/** Takes the password out of a URL, keeps it for connections to the returned target, and returns the target. */
export function registerMysqlUrl(url: string): string {
  const parsed = parsedUrl(url);
  const password = decodeURIComponent(parsed.password) || parsed.searchParams.get('password') || '';
  const target = redactMysqlUrl(url);
  if (password) passwords.set(target, password);
  else passwords.delete(target);
  return target;
}

/** The database a target names (`BIRD` in the official layout), or undefined. */
export function mysqlDatabase(target: string): string | undefined {
  const name = decodeURIComponent(parsedUrl(target).pathname.replace(/^\//, ''));
  return name || undefined;
}

/** The same server with another database (or none), keeping the password. */
export function withDatabase(target: string, database: string | undefined): string {
  const parsed = parsedUrl(target);
  parsed.pathname = database === undefined ? '' : `/${encodeURIComponent(database)}`;
  const derived = parsed.toString();
  const password = passwords.get(target);
  if (password) passwords.set(derived, password);
  return derived;
}

/**
 * mysql2's settings for a target: host and port, or `?socket=` for a unix socket; user (default root, as the
 * client's); the kept password or MYSQL_PWD; the database. Rows come as arrays of raw bytes (pythonValues.ts
 * turns them into pymysql's values), in utf8mb4.
 */
export function mysqlConnectionOptions(target: string): ConnectionOptions {
  const parsed = parsedUrl(target);
  const socket = parsed.searchParams.get('socket') ?? parsed.searchParams.get('socketPath');
  const password = passwords.get(target) ?? process.env.MYSQL_PWD;
  return {
    ...(socket ? { socketPath: socket } : { host: parsed.hostname || 'localhost', port: Number(parsed.port || 3306) }),
    user: decodeURIComponent(parsed.username) || 'root',
    ...(password ? { password } : {}),
    database: mysqlDatabase(target),
    charset: 'utf8mb4',
    connectTimeout: 10_000,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    rowsAsArray: true,
  };
}
