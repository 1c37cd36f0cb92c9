import type { Db, SqlDialect } from '../dialect.js';

/** What every repository gets: its connection, the dialect, and how to make a batch atomic. */
export interface RepoContext {
  readonly db: Db;
  readonly dialect: SqlDialect;
  /** Runs `fn` atomically: inside the current transaction, or in a new one outside any. */
  atomic<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}
