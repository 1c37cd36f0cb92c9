import type { RecordStore } from './record-store.js';
import type { DeliveryStatusRepository, HeldStatus, ProviderRef } from '../storage.js';
import { docsOf } from './docs.js';

const REFS = 'provider-refs';
const HELD = 'held-status';

/**
 * A provider's id of something, apart from the provider by a control character no id uses; migration
 * 0018 writes the same keys (`chr(1)`).
 */
const ofProvider = (providerId: string, id: string) => `${providerId}\u0001${id}`;

/**
 * Where each event held by this process stands in arrival order among those held in the same
 * millisecond: receive instants alone tie, and the sort breaks ties by key (the event id), not by
 * arrival. Process-wide, as the repositories are made again for each transaction; events of other
 * processes in the same millisecond have no order between them to keep.
 */
let arrivals = 0;
/** Fixed-width, so comparing text compares numbers (far more than a process holds). */
const arrival = () => String(++arrivals).padStart(16, '0');

/**
 * References by (provider, provider message id), indexed by the message (`i1`) and its subscriber
 * (`i2`), so the message's deletion takes them along (`deleteProviderRefs`). Held events by
 * (provider, event id), indexed by (provider, provider message id) (`i1`) and integration (`i2`),
 * sorted by `receivedAt|arrival`: in the order they came, and before an instant by a range on it
 * (the instants are of one length, so `receivedAt < before` exactly when the sort is).
 */
export function deliveryStatusRepository(records: RecordStore): DeliveryStatusRepository {
  return {
    async link(env, refs) {
      if (refs.length === 0) return;
      await records.insertNew(env, REFS, refs.map((ref) => ({ key: ofProvider(ref.providerId, ref.providerMessageId), i1: ref.messageId, i2: ref.subscriberInternalId, doc: ref })));
    },
    async find(env, providerId, providerMessageIds) {
      if (providerMessageIds.length === 0) return [];
      return docsOf<ProviderRef>(await records.get(env, REFS, providerMessageIds.map((id) => ofProvider(providerId, id))));
    },
    async hold(env, held) {
      if (held.length === 0) return;
      await records.insertNew(
        env,
        HELD,
        held.map((h) => ({ key: ofProvider(h.providerId, h.event.eventId), i1: ofProvider(h.providerId, h.event.providerMessageId), i2: h.integrationId ?? null, sort: `${h.receivedAt}|${arrival()}`, doc: h })),
      );
    },
    async takeHeld(env, providerId, providerMessageIds) {
      if (providerMessageIds.length === 0) return [];
      const taken = await records.find(env, HELD, { i1: providerMessageIds.map((id) => ofProvider(providerId, id)) });
      if (taken.length > 0) await records.delete(env, HELD, taken.map((record) => record.key));
      return docsOf<HeldStatus>(taken);
    },
    dropHeldBefore: async (env, before) => (await records.deleteWhere(env, HELD, { sort: { lt: before } })).length,
    countHeld: (env, integrationId) => records.count(env, HELD, { i2: integrationId }),
  };
}

/**
 * Deletes the references that point to these messages (of this subscriber, when named): the other
 * half of a message's deletion, which `storageRepositories` runs with the backend's in one atomic step.
 */
export async function deleteProviderRefs(records: RecordStore, env: string, messageIds: readonly string[], subscriberInternalId?: string): Promise<void> {
  if (messageIds.length === 0) return;
  await records.deleteWhere(env, REFS, { i1: [...new Set(messageIds)], ...(subscriberInternalId !== undefined && { i2: subscriberInternalId }) });
}
