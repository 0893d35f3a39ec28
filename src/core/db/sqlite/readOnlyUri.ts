import * as path from 'path';

/** A read-only URI for ATTACH: percent-escaped, since `?`, `#` and `%` in a path would be read as URI syntax. */
export function readOnlyUri(file: string): string {
  const segments = path.resolve(file).split(path.sep).join('/').split('/');
  const encoded = segments.map((s) => (/^[A-Za-z]:$/.test(s) ? s : encodeURIComponent(s))).join('/');
  return `file:${encoded.startsWith('/') ? '' : '/'}${encoded}?mode=ro`;
}
