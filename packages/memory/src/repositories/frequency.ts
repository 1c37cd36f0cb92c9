import type { StorageRepositories, WindowHit } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

/** Window hits and settings: env|key → hit id → hit, and env|name → value. */
export function frequencyRepositories(t: Tables): Pick<StorageRepositories, 'frequency' | 'settings'> {
  return {
    frequency: {
      async record(env, hits) {
        for (const hit of hits) {
          const bucket = t.inner(t.windowHits, k(env, hit.key));
          if (!bucket.has(hit.id)) t.put(bucket, hit.id, { ...hit });
        }
      },
      async recent(env, keys, since) {
        const out = new Map<string, string[]>();
        for (const key of new Set(keys)) {
          const bucket = t.windowHits.get(k(env, key));
          const instants = bucket ? [...bucket.values()].map((h: WindowHit) => h.at).filter((at) => at > since).sort() : [];
          if (instants.length > 0) out.set(key, instants);
        }
        return out;
      },
      async prune(env, keys, now) {
        let pruned = 0;
        for (const key of new Set(keys)) {
          const bucket = t.windowHits.get(k(env, key));
          if (!bucket) continue;
          for (const [id, hit] of [...bucket]) if (hit.expiresAt <= now && t.del(bucket, id)) pruned++;
        }
        return pruned;
      },
      async forget(env, hits) {
        let forgotten = 0;
        for (const { key, id } of hits) {
          const bucket = t.windowHits.get(k(env, key));
          if (bucket?.has(id) && t.del(bucket, id)) forgotten++;
        }
        return forgotten;
      },
      async pruneExpired(env, now, limit) {
        let pruned = 0;
        const prefix = k(env, '');
        for (const [bucketKey, bucket] of t.windowHits) {
          if (!bucketKey.startsWith(prefix)) continue;
          for (const [id, hit] of [...bucket]) {
            if (pruned >= limit) return pruned;
            if (hit.expiresAt <= now && t.del(bucket, id)) pruned++;
          }
        }
        return pruned;
      },
    },
    settings: {
      async get(env, name) {
        const value = t.settings.get(k(env, name));
        return value === undefined ? null : t.copy(value);
      },
      async put(env, name, value) {
        t.put(t.settings, k(env, name), t.copy(value));
      },
    },
  };
}
