import type { RecordStore } from './record-store.js';
import type { Subscriber } from '../schemas/index.js';
import type { SubscriberRepository } from '../storage.js';
import { foundInOrder } from '../util/found-in-order.js';

const TABLE = 'subscribers';

/**
 * Subscribers keyed (and so ordered) by subscriberId, with no index value (nothing looks one up by
 * its internal id: a write per subscriber fewer). Deleting
 * one takes its preferences and memberships with it: `storageRepositories` wraps `delete` in one
 * atomic step with those.
 */
export function subscriberRepository(records: RecordStore): SubscriberRepository {
  return {
    async putMany(env, subscribers) {
      if (subscribers.length === 0) return;
      await records.put(env, TABLE, subscribers.map((s) => ({ key: s.subscriberId, doc: s })));
    },
    async getMany(env, subscriberIds) {
      if (subscriberIds.length === 0) return [];
      const found = new Map(((await records.getDocs(env, TABLE, [...new Set(subscriberIds)])) as Subscriber[]).map((s) => [s.subscriberId, s] as const));
      return foundInOrder(subscriberIds, found);
    },
    async idPage(env, { after, until, limit }) {
      if (limit <= 0) return [];
      const range = { ...(after !== null && { gt: after }), ...(until !== undefined && { lte: until }) };
      // Every subscriber sorts as '' : naming it lets a backend seek its sort index to `after`.
      const page = await records.find(env, TABLE, { sort: '', ...(Object.keys(range).length > 0 && { key: range }), limit });
      return page.map((r) => r.key);
    },
    delete: async (env, subscriberId) => (await records.delete(env, TABLE, [subscriberId])) > 0,
  };
}
