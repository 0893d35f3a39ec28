/**
 * The Score panel's "Look for a database where they differ" (issue 19): app/counterexampleSearch.ts's
 * PairCounterexamples decides and searches for the editor's pair; this module answers the request with the
 * witness folder under the extension's storage, the editor's refusal off SQLite, and its failures in the
 * editor's words.
 */
import * as os from 'os';
import * as path from 'path';
import * as fs from 'fs';
import { CounterexampleParams, CounterexampleResult, VesLensErrorCodes, WITNESS_FOLDER } from '../../shared/protocol';
import { PairCounterexamples } from '../../app/counterexampleSearch';
import { wasCancelled } from '../../app/queryRuns';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError, UserError } from '../errors';
import { QueryTargets } from '../queryTargets';
import { openScoringPair } from './scoringPair';

/** The folder of this server's counterexample databases when the client gave no storage: made once, private to it. */
let privateFallbackFolder: string | undefined;

/**
 * Where the editor writes counterexample databases: under the extension's storage, never beside a real database.
 * Without a storage folder, a new folder of this server's own under the temp folder (mkdtemp: unpredictable,
 * readable by this user only), not a fixed shared path another user could create first or link elsewhere.
 */
export function witnessFolder(storageDir: string | undefined): string {
  if (storageDir) return path.join(storageDir, WITNESS_FOLDER);
  privateFallbackFolder ??= fs.mkdtempSync(path.join(os.tmpdir(), `ves-lens-${WITNESS_FOLDER}-`));
  return privateFallbackFolder;
}

export class CounterexampleAction {
  /** One search at a time: a cancelled one runs out its budget before the next starts. */
  private readonly searches = new PairCounterexamples(editorText);

  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {}

  async run(params: CounterexampleParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<CounterexampleResult> {
    const pair = await openScoringPair(this.context, this.targets, params);
    const searching = { ...this.context.timing, ...this.context.limits, budgetSeconds: params.budgetSeconds, signal, progress };
    let found;
    try {
      found = await this.searches.run(pair, { ...searching, outDir: () => witnessFolder(this.context.storageDir) });
    } catch (error) {
      if (wasCancelled(error, signal)) throw new CancelledError();
      throw error;
    }
    if (found.status === 'not_sqlite') {
      const message = 'a counterexample database is a SQLite file made from SQLite files: set vesLens.engine to sqlite to look for one';
      throw new UserError(message, VesLensErrorCodes.badInput);
    }
    const { budgetSeconds, ...answer } = found;
    return { question: this.context.state.info(pair.question), ...answer, budgetSeconds, elapsedMs: performance.now() - pair.started };
  }
}
