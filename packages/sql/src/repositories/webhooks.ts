import type { WebhookDelivery, WebhookEndpoint } from '@tidings/core';
import type { StorageRepositories } from '@tidings/core/internal';
import { decodeJson, encodeJson } from '../codec.js';
import { rowInserter } from '../row-inserter.js';
import type { RepoContext } from './context.js';

const insertDeliveryRows = rowInserter('tidings_webhook_deliveries', ['env', 'id', 'endpoint_id', 'status', 'created_at', 'doc']);

export function webhookRepositories({ db, dialect }: RepoContext): Pick<StorageRepositories, 'webhooks'> {
  const deliveryRow = (env: string, d: WebhookDelivery) => ({ env, id: d._id, endpoint_id: d.endpointId, status: d.status, created_at: d.createdAt, doc: encodeJson(d) });
  return {
    webhooks: {
      async putEndpoint(env, endpoint) {
        const row = { created_at: endpoint.createdAt, doc: encodeJson(endpoint) };
        await db.insertInto('tidings_webhook_endpoints').values({ env, id: endpoint._id, ...row }).onConflict((oc) => oc.columns(['env', 'id']).doUpdateSet(row)).execute();
      },
      async getEndpoint(env, id) {
        const found = await db.selectFrom('tidings_webhook_endpoints').select('doc').where('env', '=', env).where('id', '=', id).executeTakeFirst();
        return found ? decodeJson<WebhookEndpoint>(found.doc) : null;
      },
      async listEndpoints(env) {
        const rows = await db.selectFrom('tidings_webhook_endpoints').select('doc').where('env', '=', env).orderBy('created_at').orderBy('id').execute();
        return rows.map((r) => decodeJson<WebhookEndpoint>(r.doc));
      },
      async deleteEndpoint(env, id) {
        const result = await db.deleteFrom('tidings_webhook_endpoints').where('env', '=', env).where('id', '=', id).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) return false;
        await db.deleteFrom('tidings_webhook_deliveries').where('env', '=', env).where('endpoint_id', '=', id).execute();
        return true;
      },
      async insertDeliveries(env, deliveries) {
        await insertDeliveryRows(db, dialect, deliveries.map((d) => [env, d._id, d.endpointId, d.status, d.createdAt, encodeJson(d)]));
      },
      async getDelivery(env, id) {
        const found = await db.selectFrom('tidings_webhook_deliveries').select('doc').where('env', '=', env).where('id', '=', id).executeTakeFirst();
        return found ? decodeJson<WebhookDelivery>(found.doc) : null;
      },
      async putDelivery(env, delivery) {
        const { status, doc } = deliveryRow(env, delivery);
        await db.updateTable('tidings_webhook_deliveries').set({ status, doc }).where('env', '=', env).where('id', '=', delivery._id).execute();
      },
      async listDeliveries(env, query) {
        let select = db.selectFrom('tidings_webhook_deliveries').select('doc').where('env', '=', env);
        if (query.endpointId !== undefined) select = select.where('endpoint_id', '=', query.endpointId);
        if (query.status !== undefined) select = select.where('status', '=', query.status);
        const after = query.after;
        if (after) select = select.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
        const rows = await select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
        return rows.map((r) => decodeJson<WebhookDelivery>(r.doc));
      },
    },
  };
}
