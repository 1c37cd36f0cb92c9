import type { StorageRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

export function deliveryStatusRepositories(t: Tables): Pick<StorageRepositories, 'deliveryStatus'> {
  return {
    deliveryStatus: {
      async link(env, refs) {
        for (const ref of refs) {
          const key = k(env, `${ref.providerId}\u0000${ref.providerMessageId}`);
          if (!t.providerRefs.has(key)) t.put(t.providerRefs, key, t.copy(ref));
        }
      },
      async find(env, providerId, ids) {
        return ids.flatMap((id) => {
          const found = t.providerRefs.get(k(env, `${providerId}\u0000${id}`));
          return found ? [t.copy(found)] : [];
        });
      },
      async hold(env, held) {
        for (const item of held) {
          const key = k(env, `${item.providerId}\u0000${item.event.eventId}`);
          if (!t.heldStatus.has(key)) t.put(t.heldStatus, key, { ...t.copy(item), seq: t.nextSeq() });
        }
      },
      async takeHeld(env, providerId, ids) {
        const wanted = new Set(ids);
        const taken = [...t.heldStatus].filter(([key, h]) => key.startsWith(k(env, '')) && h.providerId === providerId && wanted.has(h.event.providerMessageId));
        for (const [key] of taken) t.del(t.heldStatus, key);
        return taken.map(([, h]) => h).sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...h }) => h);
      },
      async dropHeldBefore(env, before) {
        let dropped = 0;
        for (const [key, h] of [...t.heldStatus]) if (key.startsWith(k(env, '')) && h.receivedAt < before && t.del(t.heldStatus, key)) dropped++;
        return dropped;
      },
      async countHeld(env, integrationId) {
        let count = 0;
        for (const [key, h] of t.heldStatus) if (key.startsWith(k(env, '')) && h.integrationId === integrationId) count++;
        return count;
      },
    },
  };
}
