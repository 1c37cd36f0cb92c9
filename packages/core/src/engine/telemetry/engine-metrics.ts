import { createNoopMeter, ValueType, type Attributes, type Meter } from '@opentelemetry/api';
import type { TidingsEmitter } from '../../events.js';
import type { Job, JobKind, MessageStatus, TriggerStatus } from '../../schemas/index.js';
import type { Storage } from '../../storage.js';
import { atMostEvery } from './at-most-every.js';

/** How one provider call went: `retry` is a failure worth another attempt, `failed` one that is final. */
export type SendOutcome = 'sent' | 'failed' | 'retry';

/** What the engine reports as it works; absent (null) when no meter provider would keep it. */
export interface EngineMetrics {
  triggered(status: TriggerStatus): void;
  providerSent(providerId: string, outcome: SendOutcome, seconds: number): void;
  claimed(jobs: readonly Job[], now: Date): void;
}

/** A channel step's outcome by the status its message was made with. */
const STEP_OUTCOME: Record<MessageStatus, string> = { sent: 'sent', error: 'failed', warning: 'not_sent' };

/** Every job kind (a kind added to JobKind and not listed here fails to compile), so a kind with no job reads 0. */
const JOB_KINDS = Object.keys({ walk: true, fanout: true, unsnooze: true, digest: true, webhook: true, outbox: true, sweep: true, debounce: true, wait: true } satisfies Record<JobKind, true>) as JobKind[];

/**
 * Attribute objects made once per combination of values and reused: recording a point allocates
 * nothing (the values come from small closed sets: statuses, channels, provider ids, job kinds).
 */
function attributeCache<K extends string>(names: readonly [K, K]) {
  const byFirst = new Map<string, Map<string, Attributes>>();
  return (first: string, second: string): Attributes => {
    let inner = byFirst.get(first);
    if (!inner) byFirst.set(first, (inner = new Map()));
    let attributes = inner.get(second);
    if (!attributes) inner.set(second, (attributes = Object.freeze({ [names[0]]: first, [names[1]]: second })));
    return attributes;
  };
}

/**
 * How long the storage gauges' counts stand before a collection counts again: counting 100,000 queued
 * jobs holds SQLite's thread for about 50 ms, so a scrape must never count on its own.
 */
export const STORAGE_GAUGES_REFRESH_MS = 5_000;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/**
 * The engine's instruments on `meter`, or null for the API's no-op meter (no SDK installed): then
 * nothing is recorded, no listener added, and storage never counted. Queue depth and open digests
 * are counted in storage when the meter collects (a scrape), at most once per
 * `STORAGE_GAUGES_REFRESH_MS` and never twice at once, whatever the number of scrapers or readers;
 * collections in between report the last count.
 */
export function engineMetrics(meter: Meter, storage: Storage, env: string, events: TidingsEmitter, onError: (error: unknown) => void): EngineMetrics | null {
  if (meter === createNoopMeter()) return null;
  const triggers = meter.createCounter('tidings.triggers', { description: 'Trigger events handled, by the status of their result', valueType: ValueType.INT });
  const messages = meter.createCounter('tidings.messages', { description: 'Messages created, by channel and status when created (sent, error, warning)', valueType: ValueType.INT });
  const steps = meter.createCounter('tidings.steps', {
    description: 'Channel steps by channel and outcome: sent, failed (for good), not_sent (nowhere to go) and skipped (a preference, filter, schedule or cap; no message made)',
    valueType: ValueType.INT,
  });
  const latency = meter.createHistogram('tidings.provider.send.duration', {
    description: 'How long provider calls took, by provider and outcome (sent, failed, retry)',
    unit: 's',
    advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
  });
  const lag = meter.createHistogram('tidings.job.lag', { description: 'How late claimed jobs were: claim time minus their runAt, by kind', unit: 's', advice: { explicitBucketBoundaries: LAG_BUCKETS } });
  const queued = meter.createObservableGauge('tidings.jobs.queued', { description: 'Jobs stored (due or not, running or not), by kind', valueType: ValueType.INT });
  const openDigests = meter.createObservableGauge('tidings.digests.open', { description: 'Digests open (collecting events)', valueType: ValueType.INT });

  const statusAttributes = new Map<string, Attributes>();
  const kindAttributes = new Map<string, Attributes>(JOB_KINDS.map((kind) => [kind, Object.freeze({ kind })]));
  const messageAttributes = attributeCache(['channel', 'status']);
  const sendAttributes = attributeCache(['provider', 'outcome']);

  const stepAttributes = attributeCache(['channel', 'outcome']);
  events.on('message.created', ({ message }) => {
    messages.add(1, messageAttributes(message.channel, message.status));
    steps.add(1, stepAttributes(message.channel, STEP_OUTCOME[message.status]));
  });
  events.on('step.skipped', ({ channel }) => steps.add(1, stepAttributes(channel, 'skipped')));
  const storageCounts = atMostEvery(STORAGE_GAUGES_REFRESH_MS, async () => {
    const [jobs, digests] = await Promise.allSettled([storage.jobs.countByKind(env), storage.digests.countOpen(env)]);
    // A count that failed is reported once per refresh, and its gauge has no value until the next one.
    for (const counted of [jobs, digests]) if (counted.status === 'rejected') onError(counted.reason);
    return { jobs: jobs.status === 'fulfilled' ? jobs.value : null, digests: digests.status === 'fulfilled' ? digests.value : null };
  });
  meter.addBatchObservableCallback(
    async (result) => {
      const counts = await storageCounts();
      if (counts.jobs) for (const kind of JOB_KINDS) result.observe(queued, counts.jobs[kind] ?? 0, kindAttributes.get(kind));
      if (counts.digests !== null) result.observe(openDigests, counts.digests);
    },
    [queued, openDigests],
  );

  return {
    triggered(status) {
      let attributes = statusAttributes.get(status);
      if (!attributes) statusAttributes.set(status, (attributes = Object.freeze({ status })));
      triggers.add(1, attributes);
    },
    providerSent(providerId, outcome, seconds) {
      latency.record(seconds, sendAttributes(providerId, outcome));
    },
    claimed(jobs, now) {
      const at = now.getTime();
      for (const job of jobs) lag.record(Math.max(0, at - Date.parse(job.runAt)) / 1000, kindAttributes.get(job.kind));
    },
  };
}
