import type { Message } from '../schemas/index.js';
import type { MessageFilter } from '../schemas/message-filter.js';
import type { CountQuery, MessageRepository } from '../storage.js';
import { cursorAfter, decodePosition } from '../util/page-cursor.js';
import type { KernelMessages } from './kernel.js';

/**
 * The inbox's counts as three filters: unarchived messages of the channel, and of those the unread
 * and the unseen ones. With `now`, snoozed and expired messages are not counted; without it, nothing
 * has expired (every instant is after the empty one) and snoozed messages count.
 */
function countFilters({ channel, now }: CountQuery): MessageFilter[] {
  const base: MessageFilter = { now: now ?? '', archived: false, ...(channel !== undefined && { channel }), ...(now !== undefined && { snoozed: false }) };
  return [base, { ...base, read: false }, { ...base, seen: false }];
}

/** The messages repository core builds over the backend's: lookups, the cursor, the counts. */
export function messageRepository(kernel: KernelMessages): Omit<MessageRepository, 'deleteMany'> & Pick<KernelMessages, 'deleteMany'> {
  return {
    insertMany: (env, messages) => kernel.insertMany(env, messages),
    replaceMany: (env, messages) => kernel.replaceMany(env, messages),
    countMatching: (env, subscriberInternalId, filters) => kernel.countMatching(env, subscriberInternalId, filters),
    idsMatching: (env, subscriberInternalId, filter) => kernel.idsMatching(env, subscriberInternalId, filter),
    deleteMany: (env, subscriberInternalId, ids) => kernel.deleteMany(env, subscriberInternalId, ids),
    async getMany(env, subscriberInternalId, ids) {
      if (ids.length === 0) return [];
      const found = new Map((await kernel.find(env, { subscriberInternalId, ids: [...new Set(ids)] })).map((m) => [m._id, m] as const));
      return ids.flatMap((id) => found.get(id) ?? []);
    },
    listByTransaction: (env, transactionId) => kernel.find(env, { transactionId }),
    async feed(env, subscriberInternalId, { cursor, ...query }) {
      const after = cursor === undefined ? null : decodePosition(cursor);
      const rows = await kernel.feed(env, subscriberInternalId, { ...query, ...(after && { after }), limit: query.limit + 1 });
      const items: Message[] = rows.slice(0, query.limit);
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > query.limit && last ? cursorAfter({ at: last.createdAt, id: last._id }) : null };
    },
    async counts(env, subscriberInternalId, query = {}) {
      const [total, unread, unseen] = await kernel.countMatching(env, subscriberInternalId, countFilters(query));
      return { total: total!, unread: unread!, unseen: unseen! };
    },
  };
}
