import type { RecordStore } from './record-store.js';
import type { IdempotencyRecord, IdempotencyRepository } from '../storage.js';
import { firstDoc } from './docs.js';

const TABLE = 'idempotency';

/** Sorted by `expiresAt`, so a purge reads only the records that expired. */
const input = (key: string, record: IdempotencyRecord) => ({ key, sort: record.expiresAt, doc: record });

/** A record counts as absent once it expired, unless it is a released key still keeping its `since`. */
const gone = (record: IdempotencyRecord, now: string) => record.expiresAt <= now && (record.response !== null || record.keepUntil === null || record.keepUntil <= now);

/**
 * Idempotency keys keyed by key. `complete` and `release` read and write the record: only the
 * request that began a key changes it while it is in flight (the begin rule refuses others until
 * `expiresAt`), so no other write comes between.
 */
export function idempotencyRepository(records: RecordStore): IdempotencyRepository {
  const get = async (env: string, key: string) => firstDoc<IdempotencyRecord>(await records.get(env, TABLE, [key]));
  return {
    get,
    async put(env, key, record) {
      await records.put(env, TABLE, [input(key, record)]);
    },
    async complete(env, key, response, expiresAt) {
      const found = await get(env, key);
      if (found) await records.put(env, TABLE, [input(key, { ...found, response, expiresAt, released: false })]);
    },
    async release(env, key) {
      const found = await get(env, key);
      if (found && !found.response) await records.put(env, TABLE, [input(key, { ...found, released: true })]);
    },
    async purgeExpired(env, now) {
      const expired = await records.find(env, TABLE, { sort: { lte: now } });
      const keys = expired.filter((record) => gone(record.doc as IdempotencyRecord, now)).map((record) => record.key);
      return keys.length === 0 ? 0 : records.delete(env, TABLE, keys);
    },
  };
}
