import type { WebhookDelivery } from '@tidings/core';
import type { StorageRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

/** Newest first, then by id: the order deliveries are listed in. */
const newestFirst = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
const position = (d: WebhookDelivery) => ({ createdAt: d.createdAt, id: d._id });

export function webhookRepositories(t: Tables): Pick<StorageRepositories, 'webhooks'> {
  const inEnv = (env: string, key: string) => key.startsWith(k(env, ''));
  return {
    webhooks: {
      async putEndpoint(env, endpoint) {
        t.put(t.webhookEndpoints, k(env, endpoint._id), t.copy(endpoint));
      },
      async getEndpoint(env, id) {
        const found = t.webhookEndpoints.get(k(env, id));
        return found ? t.copy(found) : null;
      },
      async listEndpoints(env) {
        return [...t.webhookEndpoints].filter(([key]) => inEnv(env, key)).map(([, e]) => t.copy(e)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id));
      },
      async deleteEndpoint(env, id) {
        if (!t.del(t.webhookEndpoints, k(env, id))) return false;
        for (const [key, d] of [...t.webhookDeliveries]) if (inEnv(env, key) && d.endpointId === id) t.del(t.webhookDeliveries, key);
        return true;
      },
      async insertDeliveries(env, deliveries) {
        for (const d of deliveries) t.put(t.webhookDeliveries, k(env, d._id), t.copy(d));
      },
      async getDelivery(env, id) {
        const found = t.webhookDeliveries.get(k(env, id));
        return found ? t.copy(found) : null;
      },
      async putDelivery(env, delivery) {
        t.put(t.webhookDeliveries, k(env, delivery._id), t.copy(delivery));
      },
      async listDeliveries(env, query) {
        return [...t.webhookDeliveries]
          .filter(([key, d]) => inEnv(env, key) && (query.endpointId === undefined || d.endpointId === query.endpointId) && (query.status === undefined || d.status === query.status) && (!query.after || newestFirst(query.after, position(d)) < 0))
          .map(([, d]) => d)
          .sort((a, b) => newestFirst(position(a), position(b)))
          .slice(0, query.limit)
          .map((d) => t.copy(d));
      },
    },
  };
}
