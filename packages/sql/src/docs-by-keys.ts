import { decodeJson } from './codec.js';
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
    const unique = [...new Set(keys)];
    const out: D[] = [];
    const size = dialect.maxParams - 1;
    for (let start = 0; start < unique.length; start += size) {
      const { rows } = await select<{ doc: unknown }>(db, dialect, { env, keys: unique.length <= size ? unique : unique.slice(start, start + size) });
      for (const row of rows) out.push(decodeJson<D>(row.doc));
    }
    return out;
  };
}
