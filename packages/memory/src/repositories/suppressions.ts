import type { Suppression } from '@tidings/core';
import type { StorageRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

const key = (env: string, channel: string, address: string) => k(env, `${channel}\u0000${address}`);
/** Newest first, then by address: the list's order. */
const newestFirst = (a: Pick<Suppression, 'at' | 'address'>, b: Pick<Suppression, 'at' | 'address'>) => b.at.localeCompare(a.at) || b.address.localeCompare(a.address);

export function suppressionRepositories(t: Tables): Pick<StorageRepositories, 'suppressions'> {
  return {
    suppressions: {
      async add(env, entries) {
        for (const entry of entries) if (!t.suppressions.has(key(env, entry.channel, entry.address))) t.put(t.suppressions, key(env, entry.channel, entry.address), t.copy(entry));
      },
      async remove(env, channel, address) {
        return t.del(t.suppressions, key(env, channel, address));
      },
      async find(env, channel, addresses) {
        return addresses.flatMap((address) => {
          const found = t.suppressions.get(key(env, channel, address));
          return found ? [t.copy(found)] : [];
        });
      },
      async list(env, query) {
        const prefix = k(env, '');
        return [...t.suppressions]
          .filter(([k2, s]) => k2.startsWith(prefix) && (query.channel === undefined || s.channel === query.channel) && (!query.after || newestFirst(query.after, s) < 0))
          .map(([, s]) => s)
          .sort(newestFirst)
          .slice(0, query.limit)
          .map((s) => t.copy(s));
      },
    },
  };
}
