import { ProviderError } from '../../delivery/provider.js';
import type { JobOf, WebhookDelivery } from '../../schemas/index.js';
import { within } from '../runtime/step-time-limit.js';
import { endpointTurn } from './webhook-lane.js';
import { resultOf, waitUntil } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import type { WebhookTransport } from '../../delivery/webhook-transport.js';
import { webhookAttempt } from './webhook-effects.js';

/**
 * When each attempt after the first is made, from the one before: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h, so a receiver that is down gets its events for about a day after they happened.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500);

/**
 * Sends one delivery to its endpoint (outside any transaction, in the webhook lane) and says what to
 * store: delivered on a 2xx; else another attempt later, or failed for good after the last one (at
 * once for an address the transport refuses), which may disable the endpoint. A delivery already
 * settled, or of an endpoint removed or disabled, is not sent; one whose endpoint has too many in
 * flight, or an open circuit, waits without using an attempt. The receiver has `webhookTimeoutMs`.
 */
export const webhookHandler = (webhookTransport: WebhookTransport | undefined): EngineJobHandler<'webhook'> => async (job: JobOf<'webhook'>, { ctx, now }) => {
  const delivery = await ctx.storage.webhooks.getDelivery(ctx.env, job.data.deliveryId);
  if (!delivery || delivery.status !== 'pending') return resultOf(job, { kind: 'done' });
  const endpoint = await ctx.storage.webhooks.getEndpoint(ctx.env, delivery.endpointId);
  const at = now.toISOString();
  /** The delivery failed for good: no attempt is next. */
  const failed = (d: Partial<WebhookDelivery>, counts: boolean) => {
    const { nextAttemptAt: _next, ...rest } = delivery;
    return resultOf(job, { kind: 'done' }, [webhookAttempt({ ...rest, ...d, status: 'failed', updatedAt: at }, counts ? 'failed' : undefined)]);
  };
  if (!endpoint || !endpoint.active) return failed({ lastError: endpoint ? 'the endpoint is disabled' : 'the endpoint was removed' }, false);
  if (!webhookTransport) return failed({ lastError: 'the engine has no webhookTransport' }, false);

  const turn = endpointTurn(ctx, endpoint._id, ctx.clock.now().getTime());
  if (!turn.go) return resultOf(job, waitUntil(job, new Date(turn.until)));
  let status = 0;
  let error: string | undefined;
  let refused = false;
  const timeoutMs = ctx.options.webhookTimeoutMs;
  try {
    ({ status } = await within(timeoutMs, `the endpoint did not answer within ${timeoutMs} ms`, () => webhookTransport({ url: endpoint.url, secret: endpoint.secret, id: delivery._id, body: JSON.stringify(delivery.payload) })));
  } catch (thrown) {
    error = errorText(thrown);
    // An address the transport refuses (not public, not http) is refused again tomorrow: no more attempts.
    refused = thrown instanceof ProviderError && !thrown.retryable;
  } finally {
    turn.done(status >= 200 && status < 300 ? 'success' : 'failure');
  }
  const attempts = delivery.attempts + 1;
  const outcome = { attempts, lastStatus: status, ...(error !== undefined ? { lastError: error } : status >= 200 && status < 300 ? {} : { lastError: `the endpoint answered ${status}` }) };
  if (status >= 200 && status < 300) {
    const { lastError: _none, nextAttemptAt: _next, ...rest } = { ...delivery, ...outcome };
    return resultOf(job, { kind: 'done' }, [webhookAttempt({ ...rest, status: 'delivered', deliveredAt: at, updatedAt: at }, 'delivered')]);
  }
  const delay = refused ? undefined : WEBHOOK_RETRY_DELAYS_MS[attempts - 1];
  if (delay !== undefined) {
    const runAt = new Date(now.getTime() + delay);
    return resultOf(job, { kind: 'later', runAt, data: job.data, retry: false, lastError: outcome.lastError ?? null }, [webhookAttempt({ ...delivery, ...outcome, nextAttemptAt: runAt.toISOString(), updatedAt: at })]);
  }
  return failed(outcome, true);
};
