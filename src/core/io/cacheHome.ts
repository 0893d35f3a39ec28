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
