import type { Job, WebhookDelivery, WebhookEndpoint } from '../../schemas/index.js';
import type { EngineContext } from '../context.js';
import { effectApplier, type EffectApplier } from '../runtime/job-result.js';
import { forgetEndpoints, queueWebhookEvents, type WebhookEvent } from './webhook-outbox.js';

/** Deliveries that fail for good in a row (each after a day of attempts) before the endpoint is disabled. */
export const WEBHOOK_DISABLE_AFTER = 3;

/**
 * The endpoint after one of its deliveries was delivered (its failures start again from 0) or failed
 * for good (one more; at `WEBHOOK_DISABLE_AFTER` it is disabled, saying why); null when unchanged.
 */
export function endpointAfter(endpoint: WebhookEndpoint, outcome: 'delivered' | 'failed', at: string, lastError: string | undefined): WebhookEndpoint | null {
  if (outcome === 'delivered') return endpoint.failures === 0 ? null : { ...endpoint, failures: 0, updatedAt: at };
  const failures = endpoint.failures + 1;
  if (failures < WEBHOOK_DISABLE_AFTER || !endpoint.active) return { ...endpoint, failures, updatedAt: at };
  return { ...endpoint, failures, updatedAt: at, active: false, disabledAt: at, disabledReason: `${failures} deliveries in a row failed for good; the last: ${lastError ?? 'no answer'}` };
}

/**
 * A webhook delivery attempt: the delivery as it stands after it, and how it went for its endpoint
 * (`delivered`, or `failed` for good), which the commit applies to the endpoint as stored then.
 */
export interface WebhookAttemptEffect {
  readonly kind: 'webhook.attempt';
  readonly delivery: WebhookDelivery;
  readonly endpointOutcome?: 'delivered' | 'failed';
}

/** Webhook deliveries an outbox page made: the commit stores them (their jobs are queued with them). */
export interface WebhookDeliveriesEffect {
  readonly kind: 'webhook.deliveries';
  readonly deliveries: readonly WebhookDelivery[];
}

/** An event for the environment's webhook endpoints, put in the outbox by the commit. */
export interface WebhookEventEffect {
  readonly kind: 'webhook.event';
  readonly event: WebhookEvent;
}

export type WebhookEffect = WebhookAttemptEffect | WebhookDeliveriesEffect | WebhookEventEffect;

export const webhookEvent = (event: WebhookEvent): WebhookEventEffect => ({ kind: 'webhook.event', event });
/** A subscriber's walk is over: nothing waits, nothing joined a digest. */
export const runCompleted = (job: Pick<Job, 'transactionId' | 'subscriberId'>): WebhookEventEffect => webhookEvent({ type: 'workflow.run.completed', data: { transactionId: job.transactionId, subscriberId: job.subscriberId } });
export const webhookAttempt = (delivery: WebhookDelivery, endpointOutcome?: 'delivered' | 'failed'): WebhookAttemptEffect => ({ kind: 'webhook.attempt', delivery, ...(endpointOutcome && { endpointOutcome }) });
export const webhookDeliveries = (deliveries: readonly WebhookDelivery[]): WebhookDeliveriesEffect | null => (deliveries.length > 0 ? { kind: 'webhook.deliveries', deliveries } : null);

/** Stores each attempt's delivery and applies its outcome to the endpoint as stored now; an endpoint it disables is announced. */
export function webhookAttemptApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<WebhookAttemptEffect>(['webhook.attempt'], async (effects, { tx, now, add, afterCommit }) => {
    const at = now.toISOString();
    const disabled: WebhookEndpoint[] = [];
    for (const { job, effect } of effects) {
      const { delivery, endpointOutcome } = effect;
      await tx.webhooks.putDelivery(ctx.env, delivery);
      // Applied to the endpoint as stored now: the batch may hold several of its deliveries.
      const stored = endpointOutcome && (await tx.webhooks.getEndpoint(ctx.env, delivery.endpointId));
      const next = stored ? endpointAfter(stored, endpointOutcome, at, delivery.lastError) : null;
      if (!next) continue;
      await tx.webhooks.putEndpoint(ctx.env, next);
      if (stored && stored.active && !next.active) {
        disabled.push(next);
        const { secret: _secret, ...endpoint } = next;
        add(job, webhookEvent({ type: 'webhook.endpoint.disabled', data: { endpoint } }));
      }
    }
    if (disabled.length > 0) {
      afterCommit(() => {
        forgetEndpoints(ctx);
        for (const endpoint of disabled) ctx.events.emit('webhook.endpoint.disabled', { endpoint });
      });
    }
  });
}

/** Stores the deliveries outbox pages made. */
export function webhookDeliveriesApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<WebhookDeliveriesEffect>(['webhook.deliveries'], async (effects, { tx }) => {
    await tx.webhooks.insertDeliveries(ctx.env, effects.flatMap(({ effect }) => effect.deliveries));
  });
}

/** Puts the batch's events in the outbox, in the order they were made. */
export function webhookEventApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<WebhookEventEffect>(['webhook.event'], async (effects, { tx }) => {
    await queueWebhookEvents(ctx, tx, effects.map(({ effect }) => effect.event));
  });
}
