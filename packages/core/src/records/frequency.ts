import type { RecordStore } from './record-store.js';
import type { FrequencyRepository, WindowHit } from '../storage.js';

const TABLE = 'window-hits';

/** A hit's key: the window key, then the hit id, apart by a control character no key uses (as migration 0016 writes them). */
const keyOf = (hit: Pick<WindowHit, 'key' | 'id'>) => `${hit.key}\u0001${hit.id}`;

/** Window hits keyed by (key, id), indexed by key (`i1`) and expiry (`i2`), ordered by instant. */
export function frequencyRepository(records: RecordStore): FrequencyRepository {
  return {
    async record(env, hits) {
      if (hits.length > 0) await records.insertNew(env, TABLE, hits.map((hit) => ({ key: keyOf(hit), i1: hit.key, i2: hit.expiresAt, sort: hit.at, doc: hit })));
    },
    async recent(env, keys, since) {
      const out = new Map<string, string[]>();
      if (keys.length === 0) return out;
      for (const record of await records.find(env, TABLE, { i1: [...new Set(keys)], sort: { gt: since } })) {
        const list = out.get(record.i1!);
        if (list) list.push(record.sort);
        else out.set(record.i1!, [record.sort]);
      }
      return out;
    },
    prune: async (env, keys, now) => (keys.length === 0 ? 0 : (await records.deleteWhere(env, TABLE, { i1: [...new Set(keys)], i2: { lte: now } })).length),
    pruneExpired: async (env, now, limit) => (await records.deleteWhere(env, TABLE, { i2: { lte: now }, limit })).length,
    forget: async (env, hits) => (hits.length === 0 ? 0 : records.delete(env, TABLE, hits.map(keyOf))),
  };
}
