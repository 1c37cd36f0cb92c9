import type { RecordStore } from './record-store.js';
import type { WebhookDelivery, WebhookEndpoint } from '../schemas/webhook.js';
import type { RetentionRepository, WebhookRepository } from '../storage.js';
import { docsOf, firstDoc } from './docs.js';

const ENDPOINTS = 'webhook-endpoints';
const DELIVERIES = 'webhook-deliveries';

/** Deliveries by `_id`, indexed by endpoint (`i1`) and status (`i2`), ordered by `createdAt`. */
const deliveryInput = (d: WebhookDelivery) => ({ key: d._id, i1: d.endpointId, i2: d.status, sort: d.createdAt, doc: d });

/** Webhook endpoints (by `_id`, ordered by `createdAt`) and their deliveries, the outbox. */
export function webhookRepository(records: RecordStore): WebhookRepository {
  return {
    async putEndpoint(env, endpoint) {
      await records.put(env, ENDPOINTS, [{ key: endpoint._id, sort: endpoint.createdAt, doc: endpoint }]);
    },
    getEndpoint: async (env, id) => firstDoc<WebhookEndpoint>(await records.get(env, ENDPOINTS, [id])),
    listEndpoints: async (env) => docsOf<WebhookEndpoint>(await records.find(env, ENDPOINTS, {})),
    async deleteEndpoint(env, id) {
      if ((await records.delete(env, ENDPOINTS, [id])) === 0) return false;
      await records.deleteWhere(env, DELIVERIES, { i1: id });
      return true;
    },
    async insertDeliveries(env, deliveries) {
      if (deliveries.length > 0) await records.put(env, DELIVERIES, deliveries.map(deliveryInput));
    },
    getDelivery: async (env, id) => firstDoc<WebhookDelivery>(await records.get(env, DELIVERIES, [id])),
    async putDelivery(env, delivery) {
      // Only a stored delivery is replaced: one deleted meanwhile (with its endpoint) stays gone.
      if ((await records.get(env, DELIVERIES, [delivery._id])).length > 0) await records.put(env, DELIVERIES, [deliveryInput(delivery)]);
    },
    async listDeliveries(env, query) {
      return docsOf<WebhookDelivery>(
        await records.find(env, DELIVERIES, {
          ...(query.endpointId !== undefined && { i1: query.endpointId }),
          ...(query.status !== undefined && { i2: query.status }),
          order: 'desc',
          ...(query.after && { after: { sort: query.after.createdAt, key: query.after.id } }),
          limit: query.limit,
        }),
      );
    },
  };
}

/** The sweeper's part of the outbox: settled deliveries, oldest first. */
export function webhookRetention(records: RecordStore): Pick<RetentionRepository, 'deleteDeliveriesBefore'> {
  return {
    deleteDeliveriesBefore: async (env, before, limit) => (await records.deleteWhere(env, DELIVERIES, { i2: ['delivered', 'failed'], sort: { lt: before }, limit })).length,
  };
}
