// core/eval/runFailure.ts: what a run's failure left (its server gone) is never kept as a score. A lane whose
// socket broke as the server died (`write EPIPE`, seen with --jobs 2 on a PostgreSQL server killed mid-run) was
// kept as a prediction error, and the resumed run reported EX 52.86 complete where a clean run says 53.57.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { fromRunFailure, NOT_RUN } from '../../src/core/eval/runFailure';

const result = (error: string | null, notes: string[] = []) => ({ error, notes });

describe('fromRunFailure', () => {
  it("takes a server's socket errors for the run's, in the prediction's error or the gold's", () => {
    for (const error of [
      'write EPIPE',
      'read ECONNRESET',
      'connect ECONNREFUSED /tmp/ves-lens-pg-x/run/.s.PGSQL.22036',
      'Connection terminated unexpectedly',
      'gold: terminating connection due to administrator command; prediction: write EPIPE',
      `${NOT_RUN} (the database system is in recovery mode)`,
    ])
      assert.equal(fromRunFailure(result(error)), true, error);
  });

  it("keeps the query's own errors and a pair timed without failure", () => {
    for (const error of ['column m.major_id does not exist', 'syntax error at or near "s"', 'timed out after 30.0 s', null])
      assert.equal(fromRunFailure(result(error, ['1 of 20 ratios dropped by the 3σ cleaning'])), false, String(error));
  });
});
