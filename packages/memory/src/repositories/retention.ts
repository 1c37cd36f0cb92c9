import type { Message, Notification } from '@tidings/core';
import type { KernelRepositories, RecordStore } from '@tidings/core/internal';
import { deleteOwnedDigests, openDigestTransactions } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

const byOrder = <T>(key: (item: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
/** Orders by the instant, then the id: as the SQL backends do. */
const position = (at: string, id: string) => `${at}\u0000${id}`;

/** The sweeper's deletes over the Maps: each a scan, as the memory backend is for tests and small apps. */
export function retentionRepositories(t: Tables, records: RecordStore): Pick<KernelRepositories, 'retention'> {
  const messagesOf = (env: string) => [...t.messages.values()].filter((m) => m._environmentId === env);
  function deleteMessages(env: string, doomed: readonly Message[]): Message[] {
    for (const m of doomed) {
      const inbox = t.inboxes.get(k(env, m._subscriberId));
      if (inbox) t.del(inbox, m._id);
      t.del(t.messages, m._id);
    }
    return doomed.map(t.copy);
  }

  /** Triggers whose walk is not over: a job left, or an event in an open digest (core's digests, in the record store). */
  async function busyTransactions(env: string): Promise<Set<string>> {
    const busy = await openDigestTransactions(records, env);
    for (const job of t.jobs.values()) if (job.environmentId === env) busy.add(job.transactionId);
    return busy;
  }

  return {
    retention: {
      async deleteExpiredMessages(env, now, limit) {
        const expired = messagesOf(env).filter((m) => m.expiresAt !== undefined && m.expiresAt <= now);
        return deleteMessages(env, expired.sort(byOrder((m) => position(m.expiresAt!, m._id))).slice(0, limit));
      },
      async nextExpiry(env) {
        let next: string | null = null;
        for (const m of t.messages.values()) if (m._environmentId === env && m.expiresAt !== undefined && (next === null || m.expiresAt < next)) next = m.expiresAt;
        return next;
      },
      async deleteMessagesBefore(env, before, limit) {
        const old = messagesOf(env).filter((m) => m.createdAt < before);
        return deleteMessages(env, old.sort(byOrder((m) => position(m.createdAt, m._id))).slice(0, limit));
      },
      async deleteNotificationsBefore(env, before, limit) {
        const busy = await busyTransactions(env);
        const doomed: Notification[] = [];
        for (const [key, n] of t.notifications) if (key.startsWith(k(env, '')) && n.createdAt < before && !busy.has(n.transactionId)) doomed.push(n);
        const batch = doomed.sort(byOrder((n) => position(n.createdAt, n._id))).slice(0, limit);
        for (const n of batch) {
          t.del(t.notifications, k(env, n._id));
          t.del(t.transactionIds, k(env, n.transactionId));
          t.del(t.traces, k(env, n.transactionId));
        }
        await deleteOwnedDigests(records, env, batch.map((n) => n.transactionId));
        return batch.map((n) => n.transactionId);
      },
    },
  };
}
