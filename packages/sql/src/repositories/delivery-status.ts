import type { ProviderStatusEvent, StorageRepositories } from '@tidings/core';
import { decodeJson, encodeJson } from '../codec.js';
import type { RepoContext } from './context.js';

export function deliveryStatusRepositories({ db }: RepoContext): Pick<StorageRepositories, 'deliveryStatus'> {
  return {
    deliveryStatus: {
      async link(env, refs) {
        if (refs.length === 0) return;
        await db
          .insertInto('tidings_provider_refs')
          .values(refs.map((r) => ({ env, provider_id: r.providerId, provider_message_id: r.providerMessageId, message_id: r.messageId, subscriber_internal_id: r.subscriberInternalId })))
          .onConflict((oc) => oc.columns(['env', 'provider_id', 'provider_message_id']).doNothing())
          .execute();
      },
      async find(env, providerId, ids) {
        if (ids.length === 0) return [];
        const rows = await db.selectFrom('tidings_provider_refs').selectAll().where('env', '=', env).where('provider_id', '=', providerId).where('provider_message_id', 'in', ids).execute();
        return rows.map((r) => ({ providerId: r.provider_id, providerMessageId: r.provider_message_id, messageId: r.message_id, subscriberInternalId: r.subscriber_internal_id }));
      },
      async hold(env, held) {
        if (held.length === 0) return;
        await db
          .insertInto('tidings_held_status')
          .values(held.map((h) => ({ env, provider_id: h.providerId, event_id: h.event.eventId, provider_message_id: h.event.providerMessageId, received_at: h.receivedAt, doc: encodeJson(h.event) })))
          .onConflict((oc) => oc.columns(['env', 'provider_id', 'event_id']).doNothing())
          .execute();
      },
      async takeHeld(env, providerId, ids) {
        if (ids.length === 0) return [];
        const rows = await db.selectFrom('tidings_held_status').selectAll().where('env', '=', env).where('provider_id', '=', providerId).where('provider_message_id', 'in', ids).orderBy('seq').execute();
        if (rows.length === 0) return [];
        await db.deleteFrom('tidings_held_status').where('seq', 'in', rows.map((r) => r.seq)).execute();
        return rows.map((r) => ({ providerId: r.provider_id, receivedAt: r.received_at, event: decodeJson<ProviderStatusEvent>(r.doc) }));
      },
      async dropHeldBefore(env, before) {
        const result = await db.deleteFrom('tidings_held_status').where('env', '=', env).where('received_at', '<', before).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
    },
  };
}
