import type { LinksOptions } from '../schemas/index.js';
import type { CatalogEntries } from '../translations/translator.js';
import type { EmailComponents } from '../email/email-components.js';
import type { Clock } from '../clock.js';
import type { TidingsEmitter } from '../events.js';
import type { Storage } from '../storage.js';
import type { Walker } from '../walk/walker.js';
import type { RetentionPolicy } from '../schemas/expiry.js';
import type { Cap } from '../schemas/index.js';
import type { Telemetry } from './telemetry/telemetry.js';
import type { SendsInFlight } from './delivery/sends-in-flight.js';

/** What every engine module shares: where records live, what time it is, and whom to tell. */
export interface EngineContext {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly env: string;
  readonly organizationId: string;
  readonly events: TidingsEmitter;
  readonly options: EngineOptions;
  /** How workflows are walked. */
  readonly walker: Walker;
  /** Spans and measurements through `@opentelemetry/api`. */
  readonly telemetry: Telemetry;
  /** Each integration's provider calls in flight in this process (its `maxInFlight`). */
  readonly sendsInFlight: SendsInFlight;
  /** The clock's now as stored text. */
  now(): string;
}

export interface EngineOptions {
  /** What happens to email/sms/chat/push steps outside a subscriber's schedule. @default 'defer' */
  readonly outsideSchedule: 'defer' | 'skip';
  /** How long a claimed job is leased to this worker before another may take it. @default 30_000 */
  readonly leaseMs: number;
  /** How many jobs one claim takes. @default 100 */
  readonly batchSize: number;
  /** How many times a job is tried before it is given up. @default 5 */
  readonly maxAttempts: number;
  /** Longest sleep of the job loop when no job is due, in case another process enqueued one. @default 5_000 */
  readonly maxIdleMs: number;
  /** How long one provider call may take before it counts as a (retryable) failure. @default 10_000 */
  readonly providerTimeoutMs: number;
  /** How long a code workflow's own code may take to reach its next step (or check a payload). @default 30_000 */
  readonly stepTimeoutMs: number;
  /** How long a webhook endpoint has to answer one delivery. @default 5_000 */
  readonly webhookTimeoutMs: number;
  /**
   * How many jobs run at once in a process's lane, across the batches it keeps in hand, so provider
   * latency, not the engine, bounds the sends: a further batch is claimed while a full one more fits.
   * @default 200
   */
  readonly deliveryConcurrency: number;
  /**
   * Per integration and process: after `failures` consecutive retryable failures the integration is
   * passed over (the next one of the channel is tried) for `openMs`, then tried again. `false` turns
   * it off. @default { failures: 5, openMs: 30_000 }
   */
  readonly circuitBreaker: { readonly failures: number; readonly openMs: number } | false;
  /**
   * Store walks that only make in-app messages inside the trigger's transaction instead of queuing
   * a job for them (no job round trip; messages exist when `trigger` returns). @default true
   */
  readonly inlineInApp: boolean;
  readonly inlineLimit: number;
  /** Caps given in code, per subscriber across workflows (those set over the API are stored). */
  readonly caps: readonly Cap[];
  readonly fanoutChunk: number;
  /** What the sweeper deletes besides expired messages, and how many rows per transaction. */
  readonly retention: RetentionPolicy;
  /** Translation catalogs given in code, by locale (stored catalogs lie over them). */
  readonly translations: Readonly<Record<string, CatalogEntries>>;
  /** The locale of messages whose trigger and subscriber name none, and the last fallback. @default 'en' */
  readonly defaultLocale: string;
  /** Where signed preference and unsubscribe links point; none: no links, no unsubscribe headers. */
  readonly links?: LinksOptions | undefined;
  /** React components JSON email steps may name (`template.component`); none: such steps fail. */
  readonly emailComponents?: EmailComponents | undefined;
}
