/**
 * The editor's "Find a faster equivalent" of one statement: the optimizer (core/optimize/optimizeStatement.ts) run
 * on the statement's database with the run's settings (checked by optimizeRun.ts's prepareOptimizeRun), on a scaled
 * copy when the settings ask (built once and cached, handed to the optimizer, closed after), and the best rewrite
 * as the edit of its document. Progress is in core's words; the face words it.
 */
import type { OpenDatabase } from '../core/db/connectionCache';
import { openDatabase } from '../core/db/engines';
import { dialectOf } from '../core/db/readQuery';
import { optimizeStatement, type OptimizeTarget } from '../core/optimize/optimizeStatement';
import type { StatementOptimization } from '../core/optimize/types';
import { scaledCopy } from '../core/scale/scaledCopy';
import type { OptimizeRunSettings } from './optimizeRun';
import { documentEdit, formatSql, type StatementRange, type TextEdit } from './sqlLayout';

export interface OptimizedStatement {
  optimization: StatementOptimization;
  /** The statement and its best rewrite laid out for reading (in the database's dialect). */
  formatted: { original: string; rewrite: string | null };
  /** The scaled copy measured on, when the settings asked for one. */
  scaledCopy?: string;
  /** The whole statement replaced by the best rewrite, when the statement came from a document. */
  edit: TextEdit | null;
}

/** The statement's faster verified equivalent on `database`, if the search finds one within the settings' bounds; or stopped by `signal`. */
export async function optimizeOnDatabase(
  database: OpenDatabase,
  sql: string,
  settings: Pick<OptimizeRunSettings, 'scale' | 'optimize'>,
  options: {
    dbId?: string;
    questionId?: number | string;
    /** The document and the statement's span in it, for the edit. */
    source?: { document: { languageId: string; text: string }; statement: StatementRange };
    signal?: AbortSignal;
    progress?: (message: string) => void;
  },
): Promise<OptimizedStatement | { cancelled: true }> {
  const { dbId, signal, progress } = options;
  const target: OptimizeTarget = { db: database.db, schema: database.schema };
  let scaled: { path: string; close: () => Promise<void> } | undefined;
  const interrupt = () => database.db.interrupt();
  signal?.addEventListener('abort', interrupt);
  try {
    if (settings.scale !== 1) {
      progress?.(`making the ×${settings.scale} copy of ${dbId ?? 'the database'} (built once, then cached)`);
      const copy = await scaledCopy(database.path, settings.scale, { dbId });
      const db = await openDatabase(copy);
      scaled = { path: copy, close: () => db.close() };
      target.scaled = { factor: settings.scale, db };
    }
    if (signal?.aborted) return { cancelled: true };
    const optimization = await optimizeStatement(
      sql,
      target,
      { ...settings.optimize, signal, onStep: (step) => progress?.(step) },
      { dbId, questionId: options.questionId },
    );
    if (signal?.aborted) return { cancelled: true };
    const dialect = dialectOf(database.db.engine);
    const best = optimization.best;
    const { source } = options;
    return {
      optimization,
      formatted: { original: formatSql(sql, dialect), rewrite: best ? formatSql(best.sql, dialect) : null },
      ...(scaled ? { scaledCopy: scaled.path } : {}),
      edit:
        best && source
          ? documentEdit(
              source.document,
              source.statement,
              { start: source.statement.start, end: source.statement.end, text: best.sql },
              database,
            )
          : null,
    };
  } finally {
    signal?.removeEventListener('abort', interrupt);
    await scaled?.close();
  }
}
