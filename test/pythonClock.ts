import { strict as assert } from 'node:assert';
import type { TestContext } from 'node:test';
import { officialTimingClock } from '../src/core/timing/pythonTimer';

/**
 * True when python3 with sqlite3 runs here; else the test is skipped, except under CI, where it fails: CI's machine
 * gets python3 from `npm test`'s pretest (scripts/setup-postgres.sh installs Debian's python3-psycopg2), so a
 * missing one there is a broken setup, not a reason to pass without testing.
 */
export async function pythonTimes(t: TestContext): Promise<boolean> {
  const clock = await officialTimingClock();
  if (clock.clock === 'python-sqlite3') return true;
  if (process.env.CI) assert.fail(`python3 with sqlite3 is missing under CI (scripts/setup-postgres.sh installs it): ${clock.reason}`);
  t.skip(`no python3 with sqlite3 here: ${clock.reason}`);
  return false;
}
