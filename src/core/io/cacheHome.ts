import * as os from 'os';
import * as path from 'path';

/**
 * A folder of VES Lens's own caches: `$XDG_CACHE_HOME/ves-lens/<name>`, or `~/.cache/ves-lens/<name>` when
 * XDG_CACHE_HOME is unset or empty (the rule bin/ves-lens.js follows for V8's code cache of the bundle).
 */
export function cacheFolder(name: string): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'ves-lens', name);
}

/** A cache path as a person reads it: the home folder written `~` (the path itself is unchanged when outside it). */
export function cachePathForDisplay(file: string): string {
  const home = os.homedir();
  return file === home || file.startsWith(home + path.sep) ? '~' + file.slice(home.length) : file;
}
