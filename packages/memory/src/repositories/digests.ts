import type { Digest, DigestHead, StorageRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

/**
 * Digests as rows: one open digest per key. A digest's events live in their own list, appended in
 * place, so a join costs the same however many events it holds.
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
      async openHead(env, key) {
        const id = t.openDigests.get(k(env, key));
        const digest = id === undefined ? undefined : t.digests.get(k(env, id));
        return digest ? head(env, digest) : null;
      },
      async head(env, id) {
        const digest = t.digests.get(k(env, id));
        return digest ? head(env, digest) : null;
      },
      async membership(env, key, transactionId) {
        const digestId = t.digestMembers.get(k(env, `${key}\u0000${transactionId}`));
        if (digestId === undefined) return null;
        return { digestId, first: eventsOf(env, digestId)[0]?.transactionId === transactionId };
      },
      async insertOpen(env, open, event) {
        t.put(t.digests, k(env, open.id), { ...t.copy(open), status: 'open' });
        t.put(t.openDigests, k(env, open.key), open.id);
        t.append(t.digestEvents, k(env, open.id), t.copy(event));
        t.put(t.digestMembers, k(env, `${open.key}\u0000${event.transactionId}`), open.id);
      },
      async append(env, digestId, key, event, dueAt) {
        const digest = t.digests.get(k(env, digestId));
        if (!digest) return;
        if (digest.dueAt !== dueAt) t.put(t.digests, k(env, digestId), { ...digest, dueAt });
        t.append(t.digestEvents, k(env, digestId), t.copy(event));
        t.put(t.digestMembers, k(env, `${key}\u0000${event.transactionId}`), digestId);
      },
      async lastEvent(env, key) {
        const last = t.digestLastEvents.get(k(env, key));
        return last ? { ...last } : null;
      },
      async putLastEvent(env, key, last) {
        t.put(t.digestLastEvents, k(env, key), { ...last });
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
        const deleted: string[] = [];
        for (const id of [...t.openDigests.values()]) {
          const digest = t.digests.get(k(env, id));
          const events = digest ? eventsOf(env, id) : [];
          if (!digest || digest.environmentId !== env || !events.some((e) => e.transactionId === transactionId)) continue;
          t.del(t.digestMembers, k(env, `${digest.key}\u0000${transactionId}`));
          const left = events.filter((e) => e.transactionId !== transactionId);
          if (left.length === 0) {
            t.del(t.digests, k(env, digest.id));
            t.del(t.digestEvents, k(env, digest.id));
            t.del(t.openDigests, k(env, digest.key));
            deleted.push(digest.id);
            continue;
          }
          t.put(t.digestEvents, k(env, digest.id), left);
          updated.push(whole(env, digest));
        }
        return { updated, deleted };
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
      async countOpen(env) {
        let open = 0;
        for (const id of t.openDigests.values()) if (t.digests.get(k(env, id))?.environmentId === env) open++;
        return open;
      },
    },
  };
}
