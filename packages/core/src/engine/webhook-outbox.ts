import { newId } from '../ids.js';
import type { JsonObject, Message, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../schemas/index.js';
import type { StorageRepositories } from '../storage.js';
import type { EngineContext } from './context.js';
import { newJob } from './jobs.js';

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

/**
 * Writes the events as deliveries, one per event and subscribed endpoint, with the job that sends
 * each: call it inside the transaction of the change that caused them (the outbox), so a delivery
 * exists exactly when its change was committed.
 */
export async function queueWebhookEvents(ctx: EngineContext, tx: StorageRepositories, events: readonly WebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await activeEndpoints(ctx, tx);
  if (endpoints.length === 0) return;
  const now = ctx.clock.now();
  const at = now.toISOString();
  const deliveries: WebhookDelivery[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (!endpoint.events.includes(event.type)) continue;
      deliveries.push({ _id: `msg_${newId(now)}`, endpointId: endpoint._id, eventType: event.type, payload: { type: event.type, timestamp: at, data: event.data }, status: 'pending', attempts: 0, createdAt: at, updatedAt: at });
    }
  }
  if (deliveries.length === 0) return;
  await tx.webhooks.insertDeliveries(ctx.env, deliveries);
  await tx.jobs.enqueue(ctx.env, deliveries.map((d) => newJob({ env: ctx.env, kind: 'webhook', runAt: at, transactionId: `webhook:${d._id}`, subscriberId: '', data: { deliveryId: d._id } }, now)));
}
