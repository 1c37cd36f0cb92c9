import type { Message } from '@tidings/core';
import type { KernelRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

const byOrder = <T>(key: (item: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
/** Orders by the instant, then the id: as the SQL backends do. */
const position = (at: string, id: string) => `${at}\u0000${id}`;

/** The sweeper's deletes over the Maps: each a scan, as the memory backend is for tests and small apps. */
export function retentionRepositories(t: Tables): Pick<KernelRepositories, 'retention'> {
  return {
    retention: {
      async deleteMessages(env, sweep, limit) {
        const instant = (m: Message) => ('expiredAt' in sweep ? m.expiresAt : m.createdAt);
        const doomed = [...t.messages.values()]
          .filter((m) => m._environmentId === env && ('expiredAt' in sweep ? m.expiresAt !== undefined && m.expiresAt <= sweep.expiredAt : m.createdAt < sweep.createdBefore))
          .sort(byOrder((m) => position(instant(m)!, m._id)))
          .slice(0, limit);
        for (const m of doomed) {
          const inbox = t.inboxes.get(k(env, m._subscriberId));
          if (inbox) t.del(inbox, m._id);
          t.del(t.messages, m._id);
        }
        return doomed.map(t.copy);
      },
      async nextExpiry(env) {
        let next: string | null = null;
        for (const m of t.messages.values()) if (m._environmentId === env && m.expiresAt !== undefined && (next === null || m.expiresAt < next)) next = m.expiresAt;
        return next;
      },
    },
  };
}
