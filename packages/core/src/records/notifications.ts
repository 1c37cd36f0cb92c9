import type { RecordStore } from './record-store.js';
import type { Notification } from '../schemas/index.js';
import type { NotificationRepository } from '../storage.js';
import { cursorAfter, decodePosition } from '../util/page-cursor.js';
import { docsOf, firstDoc } from './docs.js';
import { foundInOrder } from '../util/found-in-order.js';

/** The notifications' record table. */
export const NOTIFICATIONS = 'notifications';
const TABLE = NOTIFICATIONS;

/** Orders a notification newest first by its instant, then its `_id` (the separator sorts below every id's characters). */
export const notificationSort = (n: Pick<Notification, 'createdAt' | '_id'>) => `${n.createdAt}\u0001${n._id}`;

/**
 * Notifications keyed by transactionId (its uniqueness is the record key's), their `_id` as the first
 * index, sorted by (`createdAt`, `_id`).
 */
export function notificationRepository(records: RecordStore): NotificationRepository {
  return {
    async insertMany(env, notifications, { callTraces } = {}) {
      if (notifications.length === 0) return [];
      // The third index value names the trace record of the call's walks.
      const stored = new Set(await records.insertNew(env, TABLE, notifications.map((n) => ({ key: n.transactionId, i1: n._id, ...(callTraces !== undefined && { i3: callTraces }), sort: notificationSort(n), doc: n }))));
      // Within a batch the first of a transactionId wins: a later one with the same key stored nothing.
      return notifications.filter((n) => stored.delete(n.transactionId)).map((n) => n._id);
    },
    async getMany(env, ids) {
      if (ids.length === 0) return [];
      const found = new Map(docsOf<Notification>(await records.find(env, TABLE, { i1: [...new Set(ids)] })).map((n) => [n._id, n] as const));
      return foundInOrder(ids, found);
    },
    getByTransactionId: async (env, transactionId) => firstDoc<Notification>(await records.get(env, TABLE, [transactionId])),
    getByTransactionIds: async (env, transactionIds) => (transactionIds.length === 0 ? [] : ((await records.getDocs(env, TABLE, transactionIds)) as Notification[])),
    async list(env, { limit, cursor, createdGte, createdLte }) {
      const after = cursor === undefined ? null : decodePosition(cursor);
      // The sort value begins with the instant: bounds on it are bounds on the sort, the upper one past every id.
      const sort = { ...(createdGte !== undefined && { gte: createdGte }), ...(createdLte !== undefined && { lt: `${createdLte}\u0002` }) };
      const rows = await records.find(env, TABLE, {
        ...(Object.keys(sort).length > 0 && { sort }),
        order: 'desc',
        ...(after && { after: { sort: notificationSort({ createdAt: after.at, _id: after.id }), key: '' } }),
        limit: limit + 1,
      });
      const items = docsOf<Notification>(rows.slice(0, limit));
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > limit && last ? cursorAfter({ at: last.createdAt, id: last._id }) : null };
    },
  };
}

/** The notifications created before `before`, oldest first, `limit` at most, those after `after` (a sort value). */
export async function notificationsBefore(records: RecordStore, env: string, before: string, limit: number, after?: string): Promise<Notification[]> {
  return docsOf<Notification>(await records.find(env, TABLE, { sort: { lt: before, ...(after !== undefined && { gt: after }) }, limit }));
}

/** Deletes the notifications of these triggers. */
export async function deleteNotifications(records: RecordStore, env: string, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length > 0) await records.delete(env, TABLE, transactionIds);
}
