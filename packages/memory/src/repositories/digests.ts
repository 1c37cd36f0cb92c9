import type { Digest, DigestHead, StorageRepositories } from '@tidings/core';
import { k, type Tables } from '../tables.js';

/**
 * Digests: one open digest per key, joined atomically (every call runs alone). A digest's events live
 * in their own list, appended in place, so a join costs the same however many events it holds.
 */
export function digestRepositories(t: Tables): Pick<StorageRepositories, 'digests'> {
  const eventsOf = (env: string, id: string) => t.digestEvents.get(k(env, id)) ?? [];
  const head = (env: string, digest: Omit<Digest, 'events'>): DigestHead => ({ ...t.copy(digest), eventCount: eventsOf(env, digest.id).length });
  const whole = (env: string, digest: Omit<Digest, 'events'>): Digest => t.copy({ ...digest, events: [...eventsOf(env, digest.id)] });
  const setStatus = (env: string, digest: Omit<Digest, 'events'>, status: Digest['status']) => {
    t.put(t.digests, k(env, digest.id), { ...digest, status });
    if (status === 'closed' && t.openDigests.get(k(env, digest.key)) === digest.id) t.del(t.openDigests, k(env, digest.key));
  };
  return {
    digests: {
      async join(env, open, event, moveDueAt) {
        const member = k(env, `${open.key}\u0000${event.transactionId}`);
        const joinedId = t.digestMembers.get(member);
        const joined = joinedId === undefined ? undefined : t.digests.get(k(env, joinedId));
        if (joined) return { digest: head(env, joined), opened: eventsOf(env, joined.id)[0]?.transactionId === event.transactionId };
        const id = t.openDigests.get(k(env, open.key));
        let current = id === undefined ? undefined : t.digests.get(k(env, id));
        const opened = !current;
        if (!current) {
          current = { ...open, status: 'open' };
          t.put(t.digests, k(env, current.id), current);
          t.put(t.openDigests, k(env, current.key), current.id);
        } else if (moveDueAt !== undefined && moveDueAt > current.dueAt) {
          current = { ...current, dueAt: moveDueAt };
          t.put(t.digests, k(env, current.id), current);
        }
        t.append(t.digestEvents, k(env, current.id), t.copy(event));
        t.put(t.digestMembers, member, current.id);
        return { digest: head(env, current), opened };
      },
      async touch(env, key, at, transactionId) {
        const last = t.digestLastEvents.get(k(env, key));
        if (last?.transactionId === transactionId) return last.previous;
        const previous = last?.at ?? null;
        t.put(t.digestLastEvents, k(env, key), { at: previous === null || at > previous ? at : previous, transactionId, previous });
        return previous;
      },
      async close(env, id) {
        const digest = t.digests.get(k(env, id));
        if (!digest) return null;
        if (digest.status === 'open') setStatus(env, digest, 'closed');
        return whole(env, { ...digest, status: 'closed' });
      },
      async get(env, id) {
        const digest = t.digests.get(k(env, id));
        return digest ? whole(env, digest) : null;
      },
      async removeTransaction(env, transactionId) {
        const updated: Digest[] = [];
        const removedOwnerOf: string[] = [];
        for (const id of [...t.openDigests.values()]) {
          const digest = t.digests.get(k(env, id));
          const events = digest ? eventsOf(env, id) : [];
          if (!digest || digest.environmentId !== env || !events.some((e) => e.transactionId === transactionId)) continue;
          if (events[0]!.transactionId === transactionId) removedOwnerOf.push(digest.id);
          t.del(t.digestMembers, k(env, `${digest.key}\u0000${transactionId}`));
          const left = events.filter((e) => e.transactionId !== transactionId);
          if (left.length === 0) {
            t.del(t.digests, k(env, digest.id));
            t.del(t.digestEvents, k(env, digest.id));
            t.del(t.openDigests, k(env, digest.key));
            continue;
          }
          t.put(t.digestEvents, k(env, digest.id), left);
          updated.push(whole(env, digest));
        }
        return { updated, removedOwnerOf };
      },
      async listOpen(env, filter = {}) {
        const out: Digest[] = [];
        for (const id of t.openDigests.values()) {
          const digest = t.digests.get(k(env, id));
          if (!digest || digest.environmentId !== env) continue;
          if (filter.subscriberId !== undefined && digest.subscriberId !== filter.subscriberId) continue;
          if (filter.transactionId !== undefined && !eventsOf(env, id).some((e) => e.transactionId === filter.transactionId)) continue;
          out.push(whole(env, digest));
        }
        return out.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
      },
    },
  };
}
