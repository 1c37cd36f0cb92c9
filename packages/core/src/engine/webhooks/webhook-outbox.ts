import { newId } from '../../ids.js';
import type { Job, JsonObject, Message, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import type { EngineContext } from '../context.js';
import { newJob } from '../runtime/jobs.js';
import { signalMessageEvents } from '../waits/signals-api.js';

/** One event for the environment's webhook endpoints. */
export interface WebhookEvent {
  readonly type: WebhookEventType;
  readonly data: JsonObject;
}

/** How long a process trusts the endpoints it read; a change in this process is seen at once. */
const ENDPOINTS_TTL_MS = 1_000;
const cache = new WeakMap<EngineContext, { at: number; endpoints: WebhookEndpoint[] }>();

/** Forgets the endpoints this engine read, after it changed one. */
export const forgetEndpoints = (ctx: EngineContext) => cache.delete(ctx);

async function activeEndpoints(ctx: EngineContext, tx: StorageRepositories): Promise<WebhookEndpoint[]> {
  const now = Date.now();
  const kept = cache.get(ctx);
  if (kept && now - kept.at < ENDPOINTS_TTL_MS) return kept.endpoints;
  const endpoints = (await tx.webhooks.listEndpoints(ctx.env)).filter((e) => e.active);
  cache.set(ctx, { at: now, endpoints });
  return endpoints;
}

/** The event of a provider's latest report on a message: `message.delivered`, `message.bounced`, … */
export function deliveryEvents(message: Message): WebhookEvent[] {
  if (!message.delivery) return [];
  return [{ type: message.delivery.state === 'failed' ? 'message.failed' : `message.${message.delivery.state}`, data: { message: message as unknown as JsonObject } }];
}

/** The events of a message as stored: its status (sent, warning, failed), and a report already applied to it. */
export function messageEvents(message: Message): WebhookEvent[] {
  const data = { message: message as unknown as JsonObject };
  const events: WebhookEvent[] = [];
  if (message.status === 'sent') events.push({ type: 'message.sent', data });
  if (message.status === 'warning') events.push({ type: 'message.warning', data });
  if (message.status === 'error' && !message.delivery) events.push({ type: 'message.failed', data });
  return [...events, ...deliveryEvents(message)];
}

/** Events one outbox job carries: a change of 20,000 messages writes 200 small jobs, never 20,000 × endpoints rows. */
export const OUTBOX_PAGE = 100;

/**
 * Writes the events to the outbox: call it inside the transaction of the change that caused them, so
 * they exist exactly when the change was committed. Only the events go in, a page per job; their
 * deliveries, one per event and subscribed endpoint, are made outside it (`outboxHandler`). Nothing
 * is written when no active endpoint subscribes to any of the events.
 */
export async function queueWebhookEvents(ctx: EngineContext, tx: StorageRepositories, events: readonly WebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  // The engine's message events are signals too, for the runs waiting on them (docs/waits.md).
  await signalMessageEvents(ctx, tx, events);
  const endpoints = await activeEndpoints(ctx, tx);
  const wanted = events.filter((event) => endpoints.some((endpoint) => endpoint.events.includes(event.type)));
  if (wanted.length === 0) return;
  const now = ctx.clock.now();
  const jobs: Job[] = [];
  for (let i = 0; i < wanted.length; i += OUTBOX_PAGE) {
    const page = wanted.slice(i, i + OUTBOX_PAGE).map(({ type, data }) => ({ type, data }));
    jobs.push(newJob({ env: ctx.env, kind: 'outbox', runAt: now.toISOString(), transactionId: `outbox:${newId(now)}`, subscriberId: '', data: { events: page } }, now));
  }
  await tx.jobs.enqueue(ctx.env, jobs);
}

/** Deliveries one outbox run makes at most, so one commit stays small whatever the number of endpoints. */
export const OUTBOX_DELIVERIES_PER_RUN = 1_000;

/**
 * The deliveries of a page of events for the endpoints after `after` (in id order), at most
 * OUTBOX_DELIVERIES_PER_RUN unless one endpoint alone needs more; `next` is the last endpoint done
 * when endpoints are left for another run. Pure.
 */
export function outboxDeliveries(events: readonly WebhookEvent[], endpoints: readonly WebhookEndpoint[], after: string | undefined, now: Date): { deliveries: WebhookDelivery[]; next: string | null } {
  const at = now.toISOString();
  const ordered = endpoints.filter((e) => e.active && (after === undefined || e._id > after)).sort((a, b) => (a._id < b._id ? -1 : 1));
  const deliveries: WebhookDelivery[] = [];
  for (const [i, endpoint] of ordered.entries()) {
    const subscribed = events.filter((event) => endpoint.events.includes(event.type));
    if (deliveries.length > 0 && deliveries.length + subscribed.length > OUTBOX_DELIVERIES_PER_RUN) return { deliveries, next: ordered[i - 1]!._id };
    for (const event of subscribed) {
      deliveries.push({ _id: `msg_${newId(now)}`, endpointId: endpoint._id, eventType: event.type, payload: { type: event.type, timestamp: at, data: event.data }, status: 'pending', attempts: 0, createdAt: at, updatedAt: at });
    }
  }
  return { deliveries, next: null };
}

/** The job that sends one delivery. */
export const deliveryJob = (env: string, delivery: WebhookDelivery, now: Date): Job =>
  newJob({ env, kind: 'webhook', runAt: now.toISOString(), transactionId: `webhook:${delivery._id}`, subscriberId: '', data: { deliveryId: delivery._id } }, now);
