import { Row } from '../db/database';
import { jsonValue } from './jsonValue';
import { distinctRows, softF1OfDistinct } from '../metrics/softF1';
import { pythonErrorOf, rowKey } from './valueKey';

const SAMPLE_SIZE = 5;

/**
 * Compares a predicted result with a known gold result one row at a time, so a prediction that returns
 * millions of rows never sits in memory: only its distinct-row keys and its first |gold| distinct rows are
 * kept (Soft-F1 pairs no more than that; later distinct rows only count as spurious). Gives exactly what
 * sameResultSet and softF1 give on the whole lists.
 */
export class StreamingComparison {
  private readonly goldKeys: Set<string>;
  private readonly goldDistinct: Row[];
  private readonly seen = new Set<string>();
  private readonly pairedRows: Row[] = [];
  private readonly extraSample: Row[] = [];
  private rowCount = 0;
  private goldMatched = 0;
  private allInGold = true;
  private readonly goldError: string | undefined;
  private predError: string | undefined;

  constructor(private readonly gold: readonly Row[]) {
    this.goldDistinct = distinctRows(gold);
    this.goldKeys = new Set(this.goldDistinct.map(rowKey));
    for (const row of gold) {
      this.goldError = pythonErrorOf(row);
      if (this.goldError !== undefined) break;
    }
  }

  add(row: Row): void {
    this.rowCount++;
    this.predError ??= pythonErrorOf(row);
    const key = rowKey(row);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.pairedRows.length < this.goldDistinct.length) this.pairedRows.push(row);
    if (this.goldKeys.has(key)) this.goldMatched++;
    else {
      this.allInGold = false;
      if (this.extraSample.length < SAMPLE_SIZE) this.extraSample.push(row);
    }
  }

  /**
   * What Python raises on either result (a list in set(), a date psycopg2 cannot make), the prediction's first
   * as the official script builds its set first: the script then scores the question 0.
   */
  get pythonError(): { side: 'prediction' | 'gold'; message: string } | undefined {
    if (this.predError !== undefined) return { side: 'prediction', message: this.predError };
    if (this.goldError !== undefined) return { side: 'gold', message: this.goldError };
    return undefined;
  }

  /** BIRD's EX: the two sets of rows are equal. */
  get sameSet(): boolean {
    return this.allInGold && this.goldMatched === this.goldKeys.size;
  }

  get softF1(): number {
    if (this.rowCount === 0 && this.gold.length === 0) return 1;
    return softF1OfDistinct(this.pairedRows, this.goldDistinct, this.seen.size - this.pairedRows.length);
  }

  /** Row counts and a few rows each side lacks, for people. */
  difference() {
    const missing = this.goldDistinct.filter((row) => !this.seen.has(rowKey(row))).slice(0, SAMPLE_SIZE);
    return {
      pred_rows: this.rowCount,
      gold_rows: this.gold.length,
      missing: missing.map((row) => row.map(jsonValue)),
      extra: this.extraSample.map((row) => row.map(jsonValue)),
    };
  }
}
