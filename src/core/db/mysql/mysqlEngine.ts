import { QueryCancelled, QueryTimeout, RunLimits } from '../database';
import { DatabaseEngine, TimedQuantity } from '../engine';
import { connectMysql, isMariaDb, MysqlConnection, streamQuery, timeLimitStatement, toMysqlError } from './mysqlConnection';

/** The version of the server last connected to (the engine has no version of its own: the server's decides). */
let lastServerVersion: string | undefined;

/** MySQL and MariaDB servers, through mysql2: a target is a connection URL (mysql/connectionTarget.ts). */
export const mysqlEngine: DatabaseEngine = {
  name: 'mysql',

  async version(): Promise<string> {
    return lastServerVersion ?? 'unknown (no server reached yet)';
  },

  async open(target: string): Promise<MysqlConnection> {
    const connection = await MysqlConnection.open(mysqlEngine, target);
    lastServerVersion ??= await connection.serverVersion();
    return connection;
  },

  /**
   * As mini_dev's MySQL script times it: a fresh connection opened outside the timed span (its statement time
   * limit set there too), then the query, every row read (pymysql's execute reads the whole result, so
   * `first-row` costs the same), and for `full` the close.
   */
  async timeExecution(target: string, body: string, quantity: TimedQuantity, limits: RunLimits = {}): Promise<number> {
    if (limits.deadline !== undefined && limits.deadline <= performance.now()) throw new QueryTimeout(limits.budgetMs ?? 0);
    const connection = await connectMysql(target);
    const kill = () =>
      connectMysql(target)
        .then((killer) => killer.query(`KILL QUERY ${Number(connection.threadId)}`, () => killer.end()))
        .catch(() => undefined);
    limits.signal?.addEventListener('abort', kill);
    const timer = limits.deadline === undefined ? undefined : setTimeout(kill, limits.deadline - performance.now() + 250);
    let ended = false;
    try {
      const version = lastServerVersion ?? '';
      await new Promise<void>((resolve, reject) =>
        connection.query(
          timeLimitStatement(isMariaDb(version), limits.deadline === undefined ? undefined : limits.deadline - performance.now()),
          (error) => (error ? reject(error) : resolve()),
        ),
      );
      const start = performance.now();
      await streamQuery(connection, body, () => undefined);
      if (quantity === 'full') {
        await new Promise<void>((resolve) => connection.end(() => resolve()));
        ended = true;
      }
      return performance.now() - start;
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (errno === 1969 || errno === 3024 || errno === 1317)
        throw limits.signal?.aborted ? new QueryCancelled() : new QueryTimeout(limits.budgetMs ?? 0);
      throw toMysqlError(error);
    } finally {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', kill);
      if (!ended) connection.destroy();
    }
  },
};
