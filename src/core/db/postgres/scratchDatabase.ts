import { Client } from 'pg';
import { DatabaseError, NUL_MESSAGE, QueryCancelled, QueryTimeout, RunLimits, TypedValue } from '../database';
import { TimedQuantity } from '../engine';
import { PlanNode } from '../planTree';
import { quoteSqlString } from '../schema';
import { serverSetting } from './connectionTarget';
import { connectClient, sendCancelRequest, toDatabaseError } from './postgresConnection';
import { runDiscarding } from './postgresEngine';
import { planTreeOfJson } from './postgresPlan';

/** A scratch session is writable (it creates indexes), with dates as psycopg2 reads them; nothing it does is committed. */
const SCRATCH_SETTINGS = [serverSetting('DateStyle', 'ISO'), serverSetting('IntervalStyle', 'postgres')];

/** Milliseconds of one execution on the scratch session, of the quantity asked. */
export type ScratchTimer = (quantity: TimedQuantity, limits: RunLimits) => Promise<number>;

/**
 * A PostgreSQL database the user gave as scratch (`--scratch-url`, a throwaway copy made by `ves-lens load`):
 * index advice creates a candidate index there to see whether the planner uses it and what it gains. Every
 * change happens inside a transaction that is rolled back, so the scratch copy ends as it began; the user's
 * own server (`--db-url`) is never written.
 */
export class PostgresScratch {
  private constructor(
    private readonly client: Client,
    /** The target it was opened on, without password. */
    readonly path: string,
  ) {}

  static async open(target: string): Promise<PostgresScratch> {
    return new PostgresScratch(await connectClient(target, SCRATCH_SETTINGS), target);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }

  private async query(text: string): Promise<{ rows: Record<string, unknown>[] }> {
    if (text.includes('\0')) throw new DatabaseError(NUL_MESSAGE);
    try {
      return await this.client.query(text);
    } catch (error) {
      throw toDatabaseError(error);
    }
  }

  /** Runs `work` in a transaction that is always rolled back, each statement limited to `timeoutMs` by the server. */
  private async rolledBack<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
    await this.query(`BEGIN; SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(timeoutMs))}`);
    try {
      return await work();
    } finally {
      await this.query('ROLLBACK').catch(() => undefined);
    }
  }

  private async plan(body: string): Promise<PlanNode[]> {
    const { rows } = await this.query(`EXPLAIN (FORMAT JSON) ${body}`);
    const plan = Object.values(rows[0])[0];
    return planTreeOfJson(JSON.parse(plan instanceof TypedValue ? plan.text : String(plan)));
  }

  /** Which of these tables (quoted names, as a query names them) the scratch copy lacks. */
  async missingTables(quotedNames: readonly string[]): Promise<string[]> {
    const missing: string[] = [];
    for (const name of quotedNames) {
      const { rows } = await this.query(`SELECT to_regclass(${quoteSqlString(name)})::text AS found`);
      if (rows[0].found === null) missing.push(name);
    }
    return missing;
  }

  /** The query's plan without the candidate and with it (created, planned, rolled back). */
  async plansWithIndex(createSql: string, body: string, timeoutMs: number): Promise<{ without: PlanNode[]; with: PlanNode[] }> {
    return this.rolledBack(timeoutMs, async () => {
      const without = await this.plan(body);
      await this.query(createSql);
      return { without, with: await this.plan(body) };
    });
  }

  /**
   * Times the query without and with the candidate index, alternately, on this one session: the index is
   * created in a transaction, and each execution without it runs after `DROP INDEX` inside a savepoint that is
   * rolled back (outside the timed span). `measure` gets the two timers; everything is rolled back after.
   */
  async timeWithIndex<T>(
    createSql: string,
    indexName: string,
    body: string,
    timeoutMs: number,
    measure: (without: ScratchTimer, withIndex: ScratchTimer) => Promise<T>,
  ): Promise<T> {
    return this.rolledBack(timeoutMs, async () => {
      await this.query(createSql);
      const execute = async (quantity: TimedQuantity, limits: RunLimits) => {
        if (limits.deadline !== undefined && limits.deadline <= performance.now()) throw new QueryTimeout(limits.budgetMs ?? 0);
        const cancel = () => sendCancelRequest(this.client);
        limits.signal?.addEventListener('abort', cancel);
        try {
          const start = performance.now();
          await runDiscarding(this.client, body, quantity);
          return performance.now() - start;
        } catch (error) {
          if ((error as { code?: string }).code === '57014')
            throw limits.signal?.aborted ? new QueryCancelled() : new QueryTimeout(limits.budgetMs ?? timeoutMs);
          throw toDatabaseError(error);
        } finally {
          limits.signal?.removeEventListener('abort', cancel);
        }
      };
      const without: ScratchTimer = async (quantity, limits) => {
        await this.query(`SAVEPOINT without_index; DROP INDEX ${indexName}`);
        try {
          return await execute(quantity, limits);
        } finally {
          await this.query('ROLLBACK TO SAVEPOINT without_index');
        }
      };
      return measure(without, execute);
    });
  }
}
