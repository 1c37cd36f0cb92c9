import { TidingsError } from '@tidings/core';
import type { Db, SqlDialect } from '../dialect.js';

/** What every repository gets: its connection, the dialect, and how to make a batch atomic. */
export interface RepoContext {
  readonly db: Db;
  readonly dialect: SqlDialect;
  /** Runs `fn` atomically: inside the current transaction, or in a new one outside any. */
  atomic<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '23505' || (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT')) || /UNIQUE constraint failed/.test(String(e?.message));
}

/** Turns a unique-key violation into a `conflict` TidingsError; other errors pass through. */
export async function conflictOnDuplicate<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw new TidingsError('conflict', `${what} already exists`, { cause: error });
    throw error;
  }
}
