import type { Digest, StorageRepositories } from '@tidings/core';
import { k, type Tables } from '../tables.js';

/** Digests: one open digest per key, joined atomically (every call runs alone). */
export function digestRepositories(t: Tables): Pick<StorageRepositories, 'digests'> {
  const save = (env: string, digest: Digest) => {
    t.put(t.digests, k(env, digest.id), t.copy(digest));
    if (digest.status === 'open') t.put(t.openDigests, k(env, digest.key), digest.id);
    else if (t.openDigests.get(k(env, digest.key)) === digest.id) t.del(t.openDigests, k(env, digest.key));
  };
  return {
    digests: {
      async join(env, open, event, moveDueAt) {
        const id = t.openDigests.get(k(env, open.key));
        const current = id === undefined ? undefined : t.digests.get(k(env, id));
        if (!current) {
          const digest: Digest = { ...open, status: 'open', events: [event] };
          save(env, digest);
          return { digest: t.copy(digest), opened: true };
        }
        const digest: Digest = { ...current, events: [...current.events, event], ...(moveDueAt !== undefined && { dueAt: moveDueAt }) };
        save(env, digest);
        return { digest: t.copy(digest), opened: false };
      },
      async touch(env, key, at) {
        const previous = t.digestLastEvents.get(k(env, key)) ?? null;
        if (previous === null || at > previous) t.put(t.digestLastEvents, k(env, key), at);
        return previous;
      },
      async close(env, id) {
        const digest = t.digests.get(k(env, id));
        if (!digest) return null;
        if (digest.status === 'open') save(env, { ...digest, status: 'closed' });
        return t.copy({ ...digest, status: 'closed' });
      },
      async get(env, id) {
        const digest = t.digests.get(k(env, id));
        return digest ? t.copy(digest) : null;
      },
      async removeTransaction(env, transactionId) {
        const updated: Digest[] = [];
        const removedOwnerOf: string[] = [];
        for (const id of [...t.openDigests.values()]) {
          const digest = t.digests.get(k(env, id));
          if (!digest || digest.environmentId !== env || !digest.events.some((e) => e.transactionId === transactionId)) continue;
          if (digest.events[0]!.transactionId === transactionId) removedOwnerOf.push(digest.id);
          const events = digest.events.filter((e) => e.transactionId !== transactionId);
          if (events.length === 0) {
            t.del(t.digests, k(env, digest.id));
            t.del(t.openDigests, k(env, digest.key));
            continue;
          }
          const next = { ...digest, events };
          save(env, next);
          updated.push(t.copy(next));
        }
        return { updated, removedOwnerOf };
      },
      async listOpen(env, filter = {}) {
        const out: Digest[] = [];
        for (const id of t.openDigests.values()) {
          const digest = t.digests.get(k(env, id));
          if (!digest || digest.environmentId !== env) continue;
          if (filter.subscriberId !== undefined && digest.subscriberId !== filter.subscriberId) continue;
          if (filter.transactionId !== undefined && !digest.events.some((e) => e.transactionId === filter.transactionId)) continue;
          out.push(t.copy(digest));
        }
        return out.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
      },
    },
  };
}
