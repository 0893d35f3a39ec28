/**
 * The one redaction every output passes through (standard output and error, report files, checkpoints, the
 * editor's log): whatever shape a connection string was given in, its password is masked. Shapes recognised by
 * their form (any scheme or none, a malformed `scheme:/`, a `password=` parameter or key=value DSN) and, beyond
 * that, every password remembered from the command line or a setting, wherever it shows up again (a driver's
 * message quoting it, an encoded or decoded copy).
 *
 * No imports: every layer may call it.
 */

export const MASK = '***';

/** Passwords seen in the inputs (long enough that masking them everywhere cannot mangle ordinary text). */
const remembered = new Set<string>();
const MIN_REMEMBERED = 4;

/**
 * `user:password@` after any scheme (`mysql://`, `http://`, a malformed `postgresql:/`) or none (`u:pw@host/db`).
 * The password runs to the last `@` of the word (a raw `@` in it), never across spaces or quotes, and never starts
 * with `//` (that is `scheme://user@host` without a password); the host may be missing (`mysql://u:pw@`); every part is
 * bounded and starts a word, so that a long text without spaces (a 30 MB `SELECT 1,1,…`) costs linear time.
 */
const USER_INFO =
  /(?<![^\s"'<>`(=])((?:[A-Za-z][\w+.-]{0,31}:\/{0,3})?[^\s:/@"'<>`=]{0,256}):((?!\/\/)[^\s"'<>`]{0,256})@(?=[^\s"'<>`@]{0,256}[\w[]|[\s"'<>`]|$)/g;

/** `password=…` (a URL parameter, a key=value DSN, PGPASSWORD=, pwd=), quoted or not. */
const KEY_VALUE = /\b([\w.]{0,32}(?:password|passwd|pwd)\s*=\s*)('[^']*'|"[^"]*"|[^\s&;,'"<>`)]+)/gi;

/** A JSON field holding a password (`"password": "…"`). */
const JSON_FIELD = /("[\w.]{0,32}(?:password|passwd|pwd)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;

/** The text with every password in it masked. */
export function redactSecrets(text: string): string {
  if (!text) return text;
  let out = text;
  if (out.includes('@')) out = out.replace(USER_INFO, (_match, head: string) => `${head}:${MASK}@`);
  if (/pass|pwd/i.test(out)) out = out.replace(KEY_VALUE, `$1${MASK}`).replace(JSON_FIELD, `$1"${MASK}"`);
  for (const password of remembered) if (out.includes(password)) out = out.split(password).join(MASK);
  return out;
}

/** The passwords a text holds in any of the shapes above (as written and decoded). */
export function passwordsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(USER_INFO)) found.push(match[2]);
  for (const match of text.matchAll(KEY_VALUE)) found.push(match[2].replace(/^(['"])(.*)\1$/, '$2'));
  for (const password of [...found]) {
    try {
      found.push(decodeURIComponent(password));
    } catch {
      // Not percent-encoded: the raw form is kept.
    }
  }
  return [...new Set(found.filter((password) => password && password !== MASK))];
}

/** Remembers a password (and the passwords a connection string holds) so that no output shows it again. */
export function rememberSecret(password: string): void {
  if (password.length >= MIN_REMEMBERED && password !== MASK) remembered.add(password);
}

/** Remembers every password the texts hold (the command line's arguments, a URL setting). */
export function rememberSecretsIn(texts: readonly string[]): void {
  for (const text of texts) for (const password of passwordsIn(text)) rememberSecret(password);
}
