import { createHash } from 'node:crypto';
import { notFound } from '../../errors.js';
import { DIGEST_KEYS, DIGESTS } from '../../records/digests.js';
import { PREFERENCE_CHANGES } from '../../records/preferences.js';
import { hashedAddress, SUPPRESSIONS } from '../../records/suppressions.js';
import { hasTraces, SKIPS } from '../../records/traces.js';
import { NOTIFICATIONS } from '../../records/notifications.js';
import type { ErasedCounts, Notification, Subscriber, Suppression } from '../../schemas/index.js';
import { normalAddress } from '../../schemas/suppression.js';
import type { StorageRepositories } from '../../storage.js';
import { AUDIT, recordAudit } from '../audit/audit-records.js';
import type { EngineContext } from '../context.js';
import { digestFlushKey } from '../runtime/jobs.js';
import { keyNames, scanRecords } from './scan-keys.js';
import { eraseSubscriberTraces } from './subscriber-traces.js';
import { eraseFromBursts } from './erase-bursts.js';
import { SIGNALS, TOKENS, WAITS } from '../waits/wait-records.js';

const WINDOW_HITS = 'window-hits';

/** How an erased subscriber is named in the audit log: a hash of their id, so the log keeps no id of theirs. */
export const erasedName = (subscriberId: string) => `sha256:${createHash('sha256').update(subscriberId).digest('hex').slice(0, 32)}`;

/** The subscriber's email and phone as the suppression list keys them. */
export const addressesOf = (subscriber: Subscriber): { channel: Suppression['channel']; address: string }[] => [
  ...(subscriber.email ? [{ channel: 'email' as const, address: normalAddress('email', subscriber.email) }] : []),
  ...(subscriber.phone ? [{ channel: 'sms' as const, address: normalAddress('sms', subscriber.phone) }] : []),
];

/**
 * Removes everything held about one subscriber inside `tx` (one transaction): the subscriber with
 * their preferences, preference history, credentials and topic memberships; their messages (and the
 * provider references to them); their jobs and digests; their decision records and skips; their
 * window counts; the audit entries about their preferences. A trigger that reached others stays,
 * without their part (`topics.direct`, `actorId`); one left with nothing of anyone goes. A suppression
 * entry of their address stays as a hash of it (the address is still never sent to). not_found when
 * there is no such subscriber.
 */
export async function eraseSubscriber(ctx: EngineContext, tx: StorageRepositories, subscriberId: string): Promise<ErasedCounts> {
  const { env } = ctx;
  const records = tx.records;
  const [subscriber] = await tx.subscribers.getMany(env, [subscriberId]);
  if (!subscriber) throw notFound('Subscriber', subscriberId);
  const touched = new Set<string>();

  // Messages, with the provider references that point to them.
  const messageIds = await tx.messages.idsMatching(env, subscriber._id, { now: '' });
  const messages = await tx.messages.getMany(env, subscriber._id, messageIds);
  for (const m of messages) touched.add(m.transactionId);
  for (let i = 0; i < messageIds.length; i += 500) await tx.messages.deleteMany(env, subscriber._id, messageIds.slice(i, i + 500));

  // Digests they own (open or closed, with their events), and their flush jobs.
  const heads = await records.find(env, DIGESTS, { i3: subscriberId });
  const digestIds = [...new Set(heads.map((h) => h.i1!))];
  const events = digestIds.length === 0 ? [] : await records.deleteWhere(env, DIGESTS, { i1: digestIds });
  for (const e of events) if (e.i2 !== null) touched.add(e.i2);
  for (const id of digestIds) await tx.jobs.cancelByTransaction(env, digestFlushKey(id));
  const keys = await scanRecords(records, env, DIGEST_KEYS, (r) => keyNames(r.key, subscriberId));
  if (keys.length > 0) await records.delete(env, DIGEST_KEYS, keys.map((r) => r.key));

  // Jobs: every one of theirs, leased or not (a running batch holding one stores nothing of it).
  for (const job of await tx.jobs.list(env, { subscriberId })) touched.add(job.transactionId);
  const jobs = await tx.jobs.cancelBySubscriber(env, subscriberId);
  // Debounced bursts waiting to run an event that names them.
  await eraseFromBursts(tx, env, subscriberId);
  // Their waiting runs, tokens and the signals kept for them (`lookBack`).
  for (const table of [WAITS, TOKENS, SIGNALS]) await records.deleteWhere(env, table, { i2: subscriberId });

  // Decision records and the index of their skipped steps.
  const traces = await eraseSubscriberTraces(records, env, subscriberId);
  for (const id of traces.transactionIds) touched.add(id);
  for (const skip of await records.deleteWhere(env, SKIPS, { i1: subscriberId })) if (skip.i2 !== null) touched.add(skip.i2);

  // Sliding-window counts (caps, throttles) keyed by them.
  const hits = await scanRecords(records, env, WINDOW_HITS, (r) => r.i1 !== null && keyNames(r.i1, subscriberId));
  if (hits.length > 0) await records.delete(env, WINDOW_HITS, hits.map((r) => r.key));

  // The subscriber, their preferences and history, topic memberships and subscriptions (one cascade).
  await tx.subscribers.delete(env, subscriberId);
  await records.deleteWhere(env, PREFERENCE_CHANGES, { i1: subscriberId });
  await records.deleteWhere(env, AUDIT, { i2: subscriberId });

  const notifications = await settleNotifications(ctx, tx, subscriberId, [...touched]);

  // Suppressions of their addresses stay, as hashes.
  let suppressionsHashed = 0;
  for (const { channel, address } of addressesOf(subscriber)) {
    const [entry] = await records.get(env, SUPPRESSIONS, [`${channel}:${address}`]);
    if (!entry) continue;
    const kept = entry.doc as Suppression;
    await records.delete(env, SUPPRESSIONS, [entry.key]);
    await tx.suppressions.add(env, [{ channel, address: hashedAddress(address), reason: kept.reason, at: kept.at }]);
    suppressionsHashed++;
  }

  await recordAudit(records, env, ctx.clock.now(), [{ kind: 'subscriber', action: 'erased', target: erasedName(subscriberId) }]);
  return { messages: messageIds.length, jobs, digests: digestIds.length, decisionRecords: traces.removed, notifications, suppressionsHashed };
}

/**
 * The triggers that reached the subscriber: each one that still has messages, jobs or decision
 * records of others stays, with the subscriber's name taken out of it; the others go. Returns how
 * many went.
 */
async function settleNotifications(ctx: EngineContext, tx: StorageRepositories, subscriberId: string, transactionIds: readonly string[]): Promise<number> {
  const { env } = ctx;
  let deleted = 0;
  const found = await tx.notifications.getByTransactionIds(env, transactionIds);
  for (const n of found) {
    const othersLeft =
      (await hasTraces(tx.records, env, n.transactionId)) ||
      (await tx.messages.listByTransaction(env, n.transactionId)).length > 0 ||
      (await tx.jobs.list(env, { transactionId: n.transactionId })).length > 0;
    if (!othersLeft) {
      await tx.records.delete(env, NOTIFICATIONS, [n.transactionId]);
      deleted++;
      continue;
    }
    const cleaned: Notification = {
      ...n,
      actorId: n.actorId === subscriberId ? null : n.actorId,
      ...(n.topics && { topics: { ...n.topics, direct: n.topics.direct.filter((id) => id !== subscriberId) } }),
    };
    if (cleaned.actorId !== n.actorId || cleaned.topics?.direct.length !== n.topics?.direct.length) {
      const [stored] = await tx.records.get(env, NOTIFICATIONS, [n.transactionId]);
      if (stored) await tx.records.put(env, NOTIFICATIONS, [{ key: stored.key, i1: stored.i1, i2: stored.i2, i3: stored.i3, sort: stored.sort, doc: cleaned }]);
    }
  }
  return deleted;
}
