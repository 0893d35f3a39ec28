import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readBirdTablesEntry } from './birdTables';
import { checkFactor, checkSource, defaultDbId, scaleDatabase, ScaleOptions } from './scaleDatabase';

/** Bump when scaleDatabase would write a different copy from the same inputs: older cached copies stop matching. */
export const SCALED_COPY_FORMAT = 1;

export interface ScaledCopyOptions {
  /** Where copies are kept; default $VES_LENS_CACHE, else <tmp>/ves-lens-scaled. */
  cacheDir?: string;
  schemaFile?: string;
  dbId?: string;
  onProgress?: ScaleOptions['onProgress'];
}

export function defaultCacheDir(): string {
  return process.env.VES_LENS_CACHE || path.join(os.tmpdir(), 'ves-lens-scaled');
}

/** Builds under way in this process, by output path: concurrent callers share one build. */
const building = new Map<string, Promise<string>>();

/**
 * The path of a copy of `sourcePath` scaled `factor` times, built once and then reused. The cache key covers the
 * source (path, size, mtime), the factor, the schema-file entry used and the copy format; a copy appears under its
 * final name only when complete (scaleDatabase renames it into place), so another process never sees half a copy.
 * Factor 1 is the source itself.
 */
export async function scaledCopy(sourcePath: string, factor: number, options: ScaledCopyOptions = {}): Promise<string> {
  checkFactor(factor);
  if (factor === 1) return sourcePath;
  checkSource(sourcePath);
  const source = fs.realpathSync(sourcePath);
  const { size, mtimeMs } = fs.statSync(source);
  const dbId = options.dbId ?? defaultDbId(source);
  const schemaEntry = options.schemaFile ? readBirdTablesEntry(options.schemaFile, dbId) : undefined;
  const key = createHash('sha256')
    .update(JSON.stringify({ format: SCALED_COPY_FORMAT, source, size, mtimeMs, factor, schema: schemaEntry ?? null }))
    .digest('hex');
  const folder = options.cacheDir ?? defaultCacheDir();
  fs.mkdirSync(folder, { recursive: true });
  const output = path.join(folder, `${dbId.replace(/[^\w.-]/g, '_')}.x${factor}.${key.slice(0, 16)}.sqlite`);
  if (fs.existsSync(output)) return output;

  let build = building.get(output);
  if (!build) {
    // overwrite: another process may finish the same copy first; both copies are identical, the last rename wins.
    build = scaleDatabase(source, factor, output, {
      schemaEntry,
      schemaFile: options.schemaFile,
      dbId,
      overwrite: true,
      onProgress: options.onProgress,
    })
      .then(() => output)
      .finally(() => building.delete(output));
    building.set(output, build);
  }
  return build;
}

/**
 * The copies of one database a run re-times on, built (or found in the cache) before any timing starts, so that
 * timing never reads the tables file or writes a copy: factor → path, or the error that kept it from being built.
 * Stops building once `signal` is aborted.
 */
export async function scaledCopies(
  sourcePath: string,
  factors: readonly number[],
  options: ScaledCopyOptions & { signal?: AbortSignal } = {},
): Promise<Map<number, string | Error>> {
  const copies = new Map<number, string | Error>();
  for (const factor of factors) {
    if (options.signal?.aborted) break;
    copies.set(factor, await scaledCopy(sourcePath, factor, options).catch((error: Error) => error));
  }
  return copies;
}
