import type { Clock } from '../clock.js';
import type { ProviderCallback } from '../delivery/provider.js';
import type { TidingsEmitter } from '../events.js';
import type { BroadcastEvent, TriggerEvent, TriggerResult } from '../schemas/index.js';
import type { Storage } from '../storage.js';
import type { DecisionRecord } from '../walk/trace.js';
import type { activityApi } from './activity/activity-api.js';
import type { idempotencyApi } from './idempotency/idempotency-api.js';
import type { brandsApi } from './email/brands-api.js';
import type { layoutsApi } from './email/layouts-api.js';
import type { partialsApi } from './email/partials-api.js';
import type { linksApi } from './links/links-api.js';
import type { translationsApi } from './translations/translations-api.js';
import type { previewApi } from './email/preview-api.js';
import type { integrationsApi, tenantsApi, workflowsApi } from './catalog/catalog-api.js';
import type { subscribersApi, topicsApi } from './catalog/people-api.js';
import type { preferencesApi } from './preferences/preferences-api.js';
import type { categoriesApi } from './categories/categories-api.js';
import type { contextsApi } from './contexts/contexts-api.js';
import type { topicSubscriptionsApi } from './topics/subscriptions-api.js';
import type { suppressionsApi } from './delivery/suppressions-api.js';
import type { capsApi } from './frequency/caps.js';
import type { messagesApi } from './inbox/messages-api.js';
import type { WriteHealth } from './runtime/write-health.js';
import type { triggerApi } from './trigger/trigger-api.js';
import type { retryApi } from './walk/retry-api.js';
import type { signalsApi } from './waits/signals-api.js';
import type { tokensApi } from './waits/tokens-api.js';
import type { webhooksApi } from './webhooks/webhooks-api.js';
import type { privacyApi } from './privacy/privacy-api.js';
import type { apiKeysApi } from './api-keys/api-keys-api.js';
import type { auditApi } from './audit/audit-api.js';

/** What is still to happen for a trigger or a subscriber: pending jobs and open digests. */
export type PendingWork = Awaited<ReturnType<ReturnType<typeof triggerApi>['pending']>>;

/** The engine's state for health checks (see `Tidings.health`). */
export interface EngineHealth {
  readonly jobLoop: { readonly running: boolean; readonly stalledForMs: number; readonly stuck: boolean };
  readonly writes: WriteHealth;
}

/**
 * An engine made by `createTidings`: one environment of one storage. Each group of methods
 * (`workflows`, `subscribers`, …) validates what it is given with the schemas of
 * `@tidings/core/schemas` and throws `TidingsError` naming the field, changing nothing.
 */
export interface Tidings {
  /** The environment every record of this engine belongs to. */
  readonly environmentId: string;
  readonly organizationId: string;
  /** The storage the engine reads and writes through: the one given, with the code workflows' catalog in front of it (its `live` relay and an SQL storage's `db` as given). */
  readonly storage: Storage;
  readonly clock: Clock;

  /** Workflows as data: upsert, get, list, delete (code workflows are listed, read-only). */
  readonly workflows: ReturnType<typeof workflowsApi>;
  /**
   * Subscribers: upsert (one or many), get, delete, channel credentials, online status; `erase` (all
   * that is held about one, in one transaction) and `export` (all of it as one JSON document).
   */
  readonly subscribers: ReturnType<typeof subscribersApi> & ReturnType<typeof privacyApi>;
  /** API keys stored in the environment: named, scoped (`full`, `trigger`, `read`), hashed, optionally expiring, rotatable. */
  readonly apiKeys: ReturnType<typeof apiKeysApi>;
  /** The audit log of configuration changes: who, what, when (never a credential's value). */
  readonly audit: ReturnType<typeof auditApi>;
  /**
   * Topics and their members, and (`topics.subscriptions`) subscribers' subscriptions to them: an
   * identifier and per-workflow preferences that hold for what reaches them through the topic.
   */
  readonly topics: ReturnType<typeof topicsApi> & { readonly subscriptions: ReturnType<typeof topicSubscriptionsApi> };
  /** Tenants, whose data templates and integration conditions read. */
  readonly tenants: ReturnType<typeof tenantsApi>;
  /** Email layouts (HTML or MJML around the body), the environment's default among them. */
  readonly layouts: ReturnType<typeof layoutsApi>;
  /** Partials: liquid blocks layouts and email steps include with `{% render 'name', … %}`. */
  readonly partials: ReturnType<typeof partialsApi>;
  /** Translation catalogs per locale (the environment's, a tenant's), over those given in code. */
  readonly translations: ReturnType<typeof translationsApi>;
  /** Brands: the environment's and each tenant's (logo, colours, sender name, Reply-To, footer, layout). */
  readonly brands: ReturnType<typeof brandsApi>;
  /**
   * Renders a workflow's steps as they would be sent to one subscriber (subject, email HTML and text,
   * in-app content, push title and body), storing and sending nothing.
   */
  readonly preview: ReturnType<typeof previewApi>;
  /** Provider integrations per channel, one primary each. */
  readonly integrations: ReturnType<typeof integrationsApi>;
  /** The in-app inbox: feed, counts, flags, actions, snooze, archive, delete, a trigger's messages. */
  readonly messages: ReturnType<typeof messagesApi>;
  /** A subscriber's preferences: global, per workflow, per channel, schedules, digest cadence. */
  readonly preferences: ReturnType<typeof preferencesApi> & ReturnType<typeof linksApi>;
  /** Categories of workflows (`marketing`, …): names for the preference page, unsubscribe defaults. */
  readonly categories: ReturnType<typeof categoriesApi>;
  /** Contexts a trigger happens in (a tenant, an app, a workspace): stored data, and the Inbox's scope. */
  readonly contexts: ReturnType<typeof contextsApi>;
  /** Addresses never sent to (bounces, complaints, by hand). */
  readonly suppressions: ReturnType<typeof suppressionsApi>;
  /** Webhook endpoints and their deliveries. */
  readonly webhooks: ReturnType<typeof webhooksApi>;
  /** Caps on what one subscriber receives across workflows. */
  readonly caps: ReturnType<typeof capsApi>;
  /** Reads for activity views: notifications page by page, a trigger or a subscriber as stored. */
  readonly activity: ReturnType<typeof activityApi>;
  /** Idempotency keys of requests an app answers: begin, complete, release, purge. */
  readonly idempotency: ReturnType<typeof idempotencyApi>;
  /**
   * One small read of the storage (when the next job is due), for readiness probes: resolves when
   * the storage answers, rejects with its error. Pair it with `health()`.
   */
  probeStorage(): Promise<{ nextJobDueAt: string | null }>;

  /**
   * Triggers a workflow for its recipients (subscribers, topics) and returns at once with its
   * `transactionId`; the walks run in jobs. Throws on input the engine refuses (see `TriggerResult`).
   */
  trigger(event: TriggerEvent): Promise<TriggerResult>;
  /** Up to 100 events in one call, committed together; each has its own result. */
  triggerBulk(events: readonly TriggerEvent[]): Promise<TriggerResult[]>;
  /** Triggers a workflow for every subscriber of the environment, paged like a topic. */
  broadcast(event: BroadcastEvent, options?: { refused?: 'reject' | 'answer' }): Promise<TriggerResult>;
  /** Cancels what is still to happen of a trigger (its jobs, its events in open digests). */
  cancel(transactionId: string): Promise<{ cancelled: number }>;
  /** What is still to happen: pending jobs (delays, held steps, digest flushes) and open digests. */
  pending(filter?: { subscriberId?: string; transactionId?: string }): Promise<PendingWork>;
  /**
   * Sends again the subscriber's steps of a trigger that failed for good (messages `error`), each as
   * a new job from that step; a step the walk went past is made alone. Returns the steps queued;
   * not_found for an unknown transaction or subscriber, conflict when nothing failed.
   */
  retry: ReturnType<typeof retryApi>;
  /**
   * Records an event of the app (see docs/waits.md): every waiting run it matches resumes exactly
   * once, every pending run whose workflow's `cancelOn` it matches is cancelled, inside one
   * transaction (`transaction`: the app's own `storage.transaction`, committed or undone with it).
   */
  signal: ReturnType<typeof signalsApi>['signal'];
  /** Tokens of `waitForToken` steps: `get`, `list`, and `complete` (once) to resume their runs. */
  readonly tokens: ReturnType<typeof tokensApi>;
  /**
   * Why each subscriber of a trigger did or did not get each step: the decision records of every
   * job run (filters that failed, variants chosen, delays, integrations picked), oldest first.
   */
  explain(transactionId: string, subscriberId?: string): Promise<DecisionRecord[]>;
  /**
   * Takes a status callback of an integration's provider (delivered, bounced, opened, …), as an app
   * that mounts its own route receives it: checked as the service signs it (`unauthorized` when
   * not), then applied to the messages it names, or held for a message not stored yet.
   */
  providerWebhook(integrationId: string, callback: ProviderCallback): Promise<{ updated: number; held: number }>;

  /** Runs every job due by the clock now; returns how many ran. For tests with a manual clock. */
  runDue(): Promise<number>;
  /** Starts the background job loops (walks, and webhook deliveries in a lane of their own). */
  start(): void;
  /** Stops the job loops after the jobs in flight, then closes what providers keep open (`Provider.close`); the storage stays open. */
  stop(): Promise<void>;
  /**
   * The engine's state for health checks: the job loop is `stuck` when the jobs in hand have gone
   * longer than twice what one job may take (`stepTimeoutMs` and two provider calls) without one
   * finishing; `writes` is not `ok` while the last write transaction failed (a full disk).
   */
  health(): EngineHealth;
  /**
   * While `health().writes` is not ok, tries one small write (a setting of its own), so an engine
   * that writes nothing else learns when the database takes writes again. Does nothing when writes are ok.
   */
  recheckWrites(): Promise<WriteHealth>;
  /** What happened, as it happens: `message.created`, `message.sent`, `digest.flushed`, … (see `TidingsEvents`). */
  readonly events: Pick<TidingsEmitter, 'on' | 'off'>;
}
