import { MAX_HELD_PER_INTEGRATION, MAX_REPORT_BYTES, onceKey, oversizedReport, sentThrough, statusReading } from '../../delivery/callback-rules.js';
import { CallbackRefused, type Provider, type ProviderCallback, type StatusReading } from '../../delivery/provider.js';
import { notFound, TidingsError } from '../../errors.js';
import { suppressionsFromReports } from '../../delivery/suppression-rules.js';
import { withDeliveryReports } from '../../messages/delivery-state.js';
import type { Message } from '../../schemas/index.js';
import type { HeldStatus, StorageRepositories } from '../../storage.js';
import { groupBy } from '../../util/group-by.js';
import type { EngineContext } from '../context.js';
import { deliveryEvents, queueWebhookEvents } from '../webhooks/webhook-outbox.js';

/** How long a callback for a message not stored yet is kept for it. */
export const HOLD_STATUS_MS = 24 * 3_600_000;

/** Whether the provider of a channel takes status callbacks (only their messages are linked). */
export type TracksStatus = (channel: Message['channel'], providerId: string) => boolean;

/**
 * Records where the provider ids of sent messages point, and applies the callbacks that came before
 * their message was stored (the send happens before the commit, so a fast provider can call back
 * first). Runs in the commit that stores the messages; returns them with those reports applied.
 * Messages of providers without status callbacks need no link, and get none.
 */
export async function linkSentMessages(tx: StorageRepositories, env: string, messages: readonly Message[], tracksStatus: TracksStatus): Promise<Message[]> {
  const sent = messages.filter((m) => m.providerMessageId !== undefined && m.providerId !== undefined && tracksStatus(m.channel, m.providerId));
  if (sent.length === 0) return [...messages];
  await tx.deliveryStatus.link(env, sent.map((m) => ({ providerId: m.providerId!, providerMessageId: m.providerMessageId!, messageId: m._id, subscriberInternalId: m._subscriberId })));
  const reports = new Map<string, HeldStatus[]>();
  for (const [providerId, group] of groupBy(sent, (m) => m.providerId!)) {
    for (const held of await tx.deliveryStatus.takeHeld(env, providerId, group.map((m) => m.providerMessageId!))) {
      const key = `${providerId}\u0000${held.event.providerMessageId}`;
      reports.set(key, [...(reports.get(key) ?? []), held]);
    }
  }
  if (reports.size === 0) return [...messages];
  const reported = messages.map((m) => {
    // Reports another integration's callbacks held are taken too, and dropped: they are not this message's.
    const held = (m.providerId && m.providerMessageId ? reports.get(`${m.providerId}\u0000${m.providerMessageId}`) ?? [] : []).filter((h) => sentThrough(m, h.integrationId)).map((h) => h.event);
    return held.length > 0 ? { message: (withDeliveryReports(m, held) ?? m), held } : { message: m, held: [] };
  });
  await tx.suppressions.add(env, reported.flatMap(({ message, held }) => suppressionsFromReports(message, held)));
  return reported.map((r) => r.message);
}

/** What one status callback changed. */
export interface CallbackApplied {
  /** Messages whose delivery state changed. */
  readonly updated: Message[];
  /** Reports kept for messages not stored yet. */
  readonly held: number;
}

/**
 * Takes one status callback of an integration's provider: the provider checks its signature (and the
 * signed timestamp, against the engine's clock) and reads it; each report then moves its message
 * forward, in one transaction, or waits for a message not stored yet. Only messages sent through
 * this integration change. The same callback twice changes nothing the second time; one whose signed
 * one-time value was taken already is refused. A refusal changes nothing: a report larger than
 * `MAX_REPORT_BYTES` is a `validation_failed`, a replay `unauthorized`, and one that would hold more
 * than `MAX_HELD_PER_INTEGRATION` reports for the integration a `conflict` (the service sends it again later).
 */
export async function applyProviderCallback(ctx: EngineContext, providers: ReadonlyMap<string, Provider>, integrationId: string, callback: ProviderCallback): Promise<CallbackApplied> {
  const { storage, env } = ctx;
  const integration = await storage.integrations.get(env, integrationId);
  if (!integration) throw notFound('Integration', integrationId);
  const provider = providers.get(`${integration.channel}:${integration.providerId}`);
  if (!provider?.readStatus) throw new TidingsError('validation_failed', `The ${integration.providerId} provider takes no status callbacks`, { issues: [{ path: 'integrationId', message: `${integration.providerId} has no status callbacks` }] });
  const receivedAt = ctx.now();
  let reading: StatusReading;
  try {
    const signingKey = integration.configurations?.inboundWebhookSigningKey;
    reading = statusReading(await provider.readStatus(callback, { credentials: integration.credentials, ...(signingKey && { signingKey }), now: new Date(receivedAt) }));
  } catch (error) {
    if (error instanceof CallbackRefused) throw new TidingsError('unauthorized', `The callback was refused: ${error.message}`);
    throw error;
  }
  const { events: reports, once } = reading;
  if (reports.length === 0) return { updated: [], held: 0 };
  const oversized = oversizedReport(reports);
  if (oversized) {
    const what = `report ${oversized.index} takes ${oversized.bytes} bytes, more than the ${MAX_REPORT_BYTES} one report may store`;
    throw new TidingsError('validation_failed', `The callback was refused: its ${what}; nothing was changed`, { issues: [{ path: 'body', message: what }] });
  }
  const providerId = integration.providerId;
  return storage.transaction(async (tx) => {
    if (once) await takeOnce(tx, env, integration._id, once, receivedAt);
    await tx.deliveryStatus.dropHeldBefore(env, new Date(Date.parse(receivedAt) - HOLD_STATUS_MS).toISOString());
    const refs = await tx.deliveryStatus.find(env, providerId, [...new Set(reports.map((r) => r.providerMessageId))]);
    const byId = new Map(refs.map((r) => [r.providerMessageId, r]));
    const waiting = reports.filter((r) => !byId.has(r.providerMessageId));
    if (waiting.length > 0) {
      const holding = await tx.deliveryStatus.countHeld(env, integration._id);
      if (holding + waiting.length > MAX_HELD_PER_INTEGRATION) {
        throw new TidingsError('conflict', `The callback was refused: integration "${integration.identifier}" holds ${holding} reports for messages not stored yet, and ${waiting.length} more would pass the ${MAX_HELD_PER_INTEGRATION} it may hold; nothing was changed (a service sends it again later)`);
      }
      await tx.deliveryStatus.hold(env, waiting.map((event) => ({ providerId, integrationId: integration._id, event, receivedAt })));
    }
    const updated: Message[] = [];
    const reportsOf = groupBy(reports, (r) => r.providerMessageId);
    for (const [subscriberInternalId, group] of groupBy(refs, (r) => r.subscriberInternalId)) {
      for (const message of await tx.messages.getMany(env, subscriberInternalId, group.map((r) => r.messageId))) {
        // Another integration of the same provider sent it: this integration's signature says nothing of it.
        if (!sentThrough(message, integration._id)) continue;
        const own = reportsOf.get(message.providerMessageId!) ?? [];
        const next = withDeliveryReports(message, own);
        if (!next) continue;
        updated.push(next);
        // Only reports new to the message: an old bounce sent again must not put back an address the app took off.
        const known = new Set(message.delivery?.history.map((e) => e.eventId));
        await tx.suppressions.add(env, suppressionsFromReports(next, own.filter((r) => !known.has(r.eventId))));
      }
    }
    if (updated.length > 0) await tx.messages.replaceMany(env, updated);
    await queueWebhookEvents(ctx, tx, updated.flatMap(deliveryEvents));
    return { updated, held: waiting.length };
  });
}

/** Since when a one-time value's use is looked for: any time (a value is signed for one use only). */
const EVER = new Date(0).toISOString();

/**
 * Records the integration's use of a signed one-time value, inside the callback's transaction, or
 * refuses the callback when it was used already. The record is a window hit (the sweeper deletes it
 * once expired) kept until the signed timestamp is too old for the callback to be taken anyway.
 */
async function takeOnce(tx: StorageRepositories, env: string, integrationId: string, once: NonNullable<StatusReading['once']>, now: string): Promise<void> {
  const key = onceKey(integrationId, once.value);
  if ((await tx.frequency.recent(env, [key], EVER)).has(key)) {
    throw new TidingsError('unauthorized', 'The callback was refused: its signed token was used already (a replay?); nothing was changed');
  }
  await tx.frequency.record(env, [{ key, id: 'used', at: now, expiresAt: once.until > now ? once.until : now }]);
}
