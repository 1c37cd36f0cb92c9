import { chunk, decodeJson } from './codec.js';
import type { Db, SqlDialect } from './dialect.js';
import { reusableQuery } from './reusable-query.js';
import type { Database } from './tables.js';

type KeyedTable = { [T in keyof Database]: Database[T] extends { env: unknown; doc: unknown } ? T : never }[keyof Database];

/**
 * The documents of one environment whose `column` is among `keys` (duplicates asked once), in as
 * few statements as the dialect's parameter limit allows; order is the database's.
 */
export function docsByKeys<T extends KeyedTable>(table: T, column: keyof Database[T] & string) {
  const select = reusableQuery<{ env: string; keys: readonly string[] }>((db, { env, keys }) =>
    db
      .selectFrom(table as 'tidings_subscribers')
      .select('doc')
      .where('env', '=', env)
      .where(column as 'subscriber_id', 'in', keys),
  );
  return async <D>(db: Db, dialect: SqlDialect, env: string, keys: readonly string[]): Promise<D[]> => {
    const out: D[] = [];
    for (const part of chunk([...new Set(keys)], 1, dialect.maxParams - 1)) {
      for (const row of (await select<{ doc: unknown }>(db, dialect, { env, keys: part })).rows) out.push(decodeJson<D>(row.doc));
    }
    return out;
  };
}
