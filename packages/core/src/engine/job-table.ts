import type { Provider } from '../delivery/provider.js';
import type { WebhookTransport } from '../delivery/webhook-transport.js';
import type { HttpStepTransport } from '../delivery/http-step-transport.js';
import type { EngineContext } from './context.js';
import { stepDeliverer } from './delivery/deliver-step.js';
import { deadTokensApplier } from './delivery/delivery-effects.js';
import type { TracksStatus } from './delivery/provider-status.js';
import { digestArrivalApplier, digestCloseApplier } from './digests/digest-effects.js';
import { digestHandler } from './digests/digest-handler.js';
import { throttleApplier, windowHitsApplier } from './frequency/frequency-effects.js';
import { messageUpdateApplier } from './inbox/inbox-effects.js';
import { unsnoozeHandler } from './inbox/unsnooze-handler.js';
import { sweepDueApplier } from './retention/retention-effects.js';
import { sweepHandler } from './retention/sweep-handler.js';
import type { JobKinds } from './runtime/job-runner.js';
import { waitBeginApplier, waitTimeoutApplier } from './waits/wait-effects.js';
import { waitHandler } from './waits/wait-handler.js';
import { startJobSpans } from './telemetry/job-spans.js';
import { fanoutHandler } from './trigger/fanout-handler.js';
import { loadBatch, type BatchData } from './walk/batch-data.js';
import { walkApplier } from './walk/walk-effects.js';
import { walkHandler } from './walk/walk-handler.js';
import { outboxHandler } from './webhooks/outbox-handler.js';
import { webhookAttemptApplier, webhookDeliveriesApplier, webhookEventApplier } from './webhooks/webhook-effects.js';
import { webhookHandler } from './webhooks/webhook-handler.js';
import { debounceHandler, type FireBurst } from './debounce/debounce-handler.js';
import { debounceRanApplier } from './debounce/debounce-effects.js';

/**
 * The engine's jobs for the runtime: a handler per kind, what a batch loads, and the appliers of the
 * features' effects in the order each commit applies them. Settling digests and throttles comes
 * first (they add trace entries, jobs and events); the outbox of webhook events last but for the
 * runtime's own queueing of jobs.
 */
export function engineJobs(ctx: EngineContext, providers: ReadonlyMap<string, Provider>, webhookTransport: WebhookTransport | undefined, runBurst: FireBurst, httpStepTransport?: HttpStepTransport): JobKinds<BatchData> {
  const deliver = stepDeliverer(providers, ctx.options, () => ctx.clock.now().getTime(), ctx.telemetry, ctx.sendsInFlight);
  const tracksStatus: TracksStatus = (channel, providerId) => providers.get(`${channel}:${providerId}`)?.readStatus !== undefined;
  return {
    handlers: {
      walk: walkHandler(deliver, httpStepTransport),
      fanout: fanoutHandler,
      unsnooze: unsnoozeHandler,
      digest: digestHandler,
      webhook: webhookHandler(webhookTransport),
      outbox: outboxHandler,
      sweep: sweepHandler,
      debounce: debounceHandler(runBurst),
      wait: waitHandler,
    },
    loadBatch: (jobs) => loadBatch(ctx, jobs),
    appliers: [
      debounceRanApplier(ctx),
      digestArrivalApplier(ctx),
      throttleApplier(ctx),
      waitBeginApplier(ctx),
      waitTimeoutApplier(ctx),
      digestCloseApplier(ctx),
      webhookAttemptApplier(ctx),
      messageUpdateApplier(ctx),
      deadTokensApplier(ctx),
      walkApplier(ctx, tracksStatus),
      webhookDeliveriesApplier(ctx),
      windowHitsApplier(ctx),
      sweepDueApplier(ctx),
      webhookEventApplier(ctx),
    ],
    startSpans(jobs, batch) {
      const tracer = ctx.telemetry.tracer();
      return tracer && startJobSpans(tracer, jobs, batch.notifications);
    },
  };
}
