import { deliveryJob, outboxDeliveries } from './webhook-outbox.js';
import { newJob } from '../runtime/jobs.js';
import { enqueue, resultOf } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import { webhookDeliveries } from './webhook-effects.js';

/**
 * Turns a page of a change's webhook events into deliveries, one per event and endpoint subscribed
 * now, each with the job that sends it, stored by the commit a bounded number at a time: endpoints
 * left over go on in another outbox job.
 */
export const outboxHandler: EngineJobHandler<'outbox'> = async (job, { ctx, now }) => {
  const endpoints = await ctx.storage.webhooks.listEndpoints(ctx.env);
  const { deliveries, next } = outboxDeliveries(job.data.events, endpoints, job.data.endpointAfter, now);
  const rest = next === null ? [] : [newJob({ env: ctx.env, kind: 'outbox', runAt: now.toISOString(), transactionId: job.transactionId, subscriberId: '', data: { events: job.data.events, endpointAfter: next } }, now)];
  return resultOf(job, { kind: 'done' }, [webhookDeliveries(deliveries), enqueue([...deliveries.map((d) => deliveryJob(ctx.env, d, now)), ...rest])]);
};
