import type { SqlStorage } from '@tidings/sql';
import type { Storage } from '@tidings/core';

/** A message's flags and creation time as the SQL row holds them, read past the repositories (the conformance suite's `rawMessage`). */
export async function rawSqlMessage(storage: Storage, id: string) {
  const row = await (storage as SqlStorage).db.selectFrom('tidings_messages').select(['read', 'seen', 'created_at']).where('id', '=', id).executeTakeFirst();
  return row ? { read: Number(row.read) === 1, seen: Number(row.seen) === 1, createdAt: row.created_at } : null;
}
