import type { SqliteStatement as Statement } from 'kysely';
import type { SqliteHandle } from './sqlite-handle.js';

/**
 * Wraps a better-sqlite3 handle so `prepare` reuses compiled statements: Kysely prepares every query
 * it runs, and the same few statements run millions of times. Bounded; least recently used goes first.
 */
export function withStatementCache(database: Pick<SqliteHandle, 'prepare'>, size = 500): { prepare(sql: string): Statement; close(): void } {
  const cache = new Map<string, Statement>();
  return {
    prepare(sql: string): Statement {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, statement);
      return statement;
    },
    close() {
      cache.clear();
    },
  };
}
