import type { ProviderStatusEvent } from '@tidings/core';
import type { StorageRepositories } from '@tidings/core/internal';
import { chunk, decodeJson, encodeJson } from '../codec.js';
import { rowInserter } from '../row-inserter.js';
import type { RepoContext } from './context.js';

const insertRefs = rowInserter('tidings_provider_refs', ['env', 'provider_id', 'provider_message_id', 'message_id', 'subscriber_internal_id'], (q) => q.onConflict((oc) => oc.columns(['env', 'provider_id', 'provider_message_id']).doNothing()));
const insertHeld = rowInserter('tidings_held_status', ['env', 'provider_id', 'integration_id', 'event_id', 'provider_message_id', 'received_at', 'doc'], (q) => q.onConflict((oc) => oc.columns(['env', 'provider_id', 'event_id']).doNothing()));

export function deliveryStatusRepositories({ db, dialect }: RepoContext): Pick<StorageRepositories, 'deliveryStatus'> {
  /** Provider message ids a statement at a time, as many as the dialect's parameter limit allows. */
  const parts = (ids: readonly string[]) => chunk([...new Set(ids)], 1, dialect.maxParams - 2);
  return {
    deliveryStatus: {
      async link(env, refs) {
        await insertRefs(db, dialect, refs.map((r) => [env, r.providerId, r.providerMessageId, r.messageId, r.subscriberInternalId]));
      },
      async find(env, providerId, ids) {
        const out = [];
        for (const part of parts(ids)) {
          const rows = await db.selectFrom('tidings_provider_refs').selectAll().where('env', '=', env).where('provider_id', '=', providerId).where('provider_message_id', 'in', part).execute();
          for (const r of rows) out.push({ providerId: r.provider_id, providerMessageId: r.provider_message_id, messageId: r.message_id, subscriberInternalId: r.subscriber_internal_id });
        }
        return out;
      },
      async hold(env, held) {
        await insertHeld(db, dialect, held.map((h) => [env, h.providerId, h.integrationId ?? null, h.event.eventId, h.event.providerMessageId, h.receivedAt, encodeJson(h.event)]));
      },
      async takeHeld(env, providerId, ids) {
        const rows = [];
        for (const part of parts(ids)) rows.push(...(await db.selectFrom('tidings_held_status').selectAll().where('env', '=', env).where('provider_id', '=', providerId).where('provider_message_id', 'in', part).execute()));
        if (rows.length === 0) return [];
        rows.sort((a, b) => a.seq - b.seq);
        for (const part of chunk(rows.map((r) => r.seq), 1, dialect.maxParams)) await db.deleteFrom('tidings_held_status').where('seq', 'in', part).execute();
        return rows.map((r) => ({ providerId: r.provider_id, ...(r.integration_id !== null && { integrationId: r.integration_id }), receivedAt: r.received_at, event: decodeJson<ProviderStatusEvent>(r.doc) }));
      },
      async dropHeldBefore(env, before) {
        const result = await db.deleteFrom('tidings_held_status').where('env', '=', env).where('received_at', '<', before).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      async countHeld(env, integrationId) {
        const row = await db.selectFrom('tidings_held_status').select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).where('env', '=', env).where('integration_id', '=', integrationId).executeTakeFirstOrThrow();
        return Number(row.n);
      },
    },
  };
}
