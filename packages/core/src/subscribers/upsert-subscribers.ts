import type { Subscriber } from '../schemas/index.js';
import type { StorageRepositories, SubscriberUpsert } from '../storage.js';
import { mergeSubscriber, type MergeOptions } from './merge-subscriber.js';

/**
 * Creates each subscriber that does not exist and, for those that do, changes only the members
 * present in the patch (`data` is replaced whole, channel settings merge). Items apply in order, so
 * the same subscriberId twice ends with the later values. Call it inside a transaction: it reads the
 * stored records, merges them here, and writes each changed subscriber once. Returns the records in
 * input order. Device tokens stay within their cap per provider: see MergeOptions for what happens
 * to a patch that would pass it (refused before anything is written, with `refuseOverCap`).
 */
export async function upsertSubscribers(
  repositories: Pick<StorageRepositories, 'subscribers'>,
  env: string,
  items: readonly SubscriberUpsert[],
  now: string,
  organizationId: string,
  known?: ReadonlyMap<string, Subscriber>,
  options: MergeOptions = {},
): Promise<Subscriber[]> {
  if (items.length === 0) return [];
  const current = new Map(known);
  const unread = [...new Set(items.map((i) => i.patch.subscriberId))].filter((id) => !current.has(id));
  if (unread.length > 0) for (const s of await repositories.subscribers.getMany(env, unread)) current.set(s.subscriberId, s);
  const result = items.map(({ patch, _id }) => {
    const next = mergeSubscriber(current.get(patch.subscriberId) ?? null, patch, { _id, now, environmentId: env, organizationId }, options);
    current.set(next.subscriberId, next);
    return next;
  });
  await repositories.subscribers.putMany(env, [...new Set(result.map((s) => s.subscriberId))].map((id) => current.get(id)!));
  return result;
}
