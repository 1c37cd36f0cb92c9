import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { signalsApi } from './waits/signals-api.js';
import { tokensApi } from './waits/tokens-api.js';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import { createEmitter, type TidingsEvents } from '../events.js';
import { TidingsError } from '../errors.js';
import type { Provider, ProviderCallback } from '../delivery/provider.js';
import type { WebhookTransport } from '../delivery/webhook-transport.js';
import type { HttpStepTransport } from '../delivery/http-step-transport.js';
import { applyProviderCallback } from './delivery/provider-status.js';
import { suppressionsApi } from './delivery/suppressions-api.js';
import { sendsInFlight } from './delivery/sends-in-flight.js';
import { webhooksApi } from './webhooks/webhooks-api.js';
import { capsApi } from './frequency/caps.js';
import { capsSchema, catalogEntriesSchema, linksOptionsSchema, localeSchema, type CapInput, type LinksOptions } from '../schemas/index.js';
import type { Storage } from '../storage.js';
import { parseInput } from '../validation.js';
import { integrationsApi, tenantsApi, workflowsApi } from './catalog/catalog-api.js';
import type { EngineContext, EngineOptions } from './context.js';
import { createJobLoop } from './runtime/job-loop.js';
import { createJobRunner, deadLeaseTakeBack, FANOUT_KINDS, FANOUT_PAGES_PER_BATCH, WEBHOOK_KINDS } from './runtime/job-runner.js';
import { engineJobs } from './job-table.js';
import type { Tidings } from './tidings.js';
import { wakingStorage } from './runtime/waking-storage.js';
import { publishLive } from './inbox/publish-live.js';
import { messagesApi } from './inbox/messages-api.js';
import { subscribersApi, topicsApi } from './catalog/people-api.js';
import { preferencesApi } from './preferences/preferences-api.js';
import { triggerApi } from './trigger/trigger-api.js';
import { retryApi } from './walk/retry-api.js';
import { stepListWalker } from '../walk/step-list-walker.js';
import { codeWalker } from '../walk/code-walker.js';
import { isCodeWorkflow, type CodeWorkflow } from '../walk/code-workflow.js';
import { routerWalker } from '../walk/router-walker.js';
import { codeCatalog, codeCatalogStorage } from './catalog/code-catalog.js';
import { withStepTimeLimit } from './runtime/step-time-limit.js';
import { watchWrite, writeHealth, type WriteHealth } from './runtime/write-health.js';
import { retentionPolicySchema, type RetentionPolicyInput } from '../schemas/expiry.js';
import { ensureSweep } from './retention/sweep.js';
import { engineTelemetry } from './telemetry/telemetry.js';
import { activityApi } from './activity/activity-api.js';
import { storageProbe } from './activity/storage-probe.js';
import { idempotencyApi } from './idempotency/idempotency-api.js';
import { brandsApi } from './email/brands-api.js';
import { layoutsApi } from './email/layouts-api.js';
import { partialsApi } from './email/partials-api.js';
import { withLinks } from './links/links-api.js';
import { categoriesApi } from './categories/categories-api.js';
import { contextsApi } from './contexts/contexts-api.js';
import { withSubscriptions } from './topics/subscriptions-api.js';
import { translationsApi } from './translations/translations-api.js';
import type { CatalogEntries } from '../translations/translator.js';
import { linkSecrets } from './links/link-secrets.js';
import { previewApi } from './email/preview-api.js';
import { withPrivacy } from './privacy/privacy-api.js';
import { apiKeysApi } from './api-keys/api-keys-api.js';
import { auditApi } from './audit/audit-api.js';
import { emailComponentsOf, type EmailComponents } from '../email/email-components.js';

export interface TidingsOptions {
  /** Where every record lives: `memoryStorage()`, `sqliteStorage(...)`, `postgresStorage(...)`. */
  storage: Storage;
  /** Where time comes from. @default the system clock */
  clock?: Clock;
  /** The environment this engine works in; records of other environments are invisible. @default 'default' */
  environmentId?: string;
  /** @default 'default' */
  organizationId?: string;
  /** @default 'defer' */
  outsideSchedule?: EngineOptions['outsideSchedule'];
  /** @default 30_000 */
  leaseMs?: number;
  /** @default 100 */
  batchSize?: number;
  /** @default 5 */
  maxAttempts?: number;
  /** @default 5_000 */
  maxIdleMs?: number;
  /** Delivery providers, matched to integrations by `providerId` and channel (see `@tidings/providers`). */
  providers?: readonly Provider[];
  /**
   * Sends webhook deliveries to your endpoints (`webhookTransport()` of `@tidings/providers`: signed
   * as Standard Webhooks says, behind the address guard). Without it, `webhooks.create` is refused.
   */
  webhookTransport?: WebhookTransport;
  /**
   * Sends workflows' `http` steps (`httpStepTransport()` of `@tidings/providers`: behind the address
   * guard). Without it, an `http` step fails (or goes on, with `continueOnFailure`).
   */
  httpStepTransport?: HttpStepTransport;
  /** @default 10_000 */
  providerTimeoutMs?: number;
  /**
   * How long a code workflow's own code (its resolvers and custom steps up to the next step, or its
   * payload check) may take. Past it the job is retried with backoff and, after `maxAttempts`, given
   * up with the reason in `explain`; a payload check past it refuses the trigger. @default 30_000
   */
  stepTimeoutMs?: number;
  /** How long a webhook endpoint has to answer a delivery before the attempt counts as failed. @default 5_000 */
  webhookTimeoutMs?: number;
  /**
   * How many jobs this process runs at once (per lane), across the batches it keeps in hand: while a
   * full batch more fits, the next batch is claimed and runs while the first waits on its providers
   * (at most 4 batches). At or below `batchSize`, batches never overlap. @default 200
   */
  deliveryConcurrency?: number;
  /**
   * Failover between a channel's integrations: after `failures` consecutive retryable failures of one
   * integration (in this process), sends skip it for `openMs`, then try it again. `false` turns it off.
   * @default { failures: 5, openMs: 30_000 }
   */
  circuitBreaker?: { failures?: number; openMs?: number } | false;
  /**
   * Store in-app-only walks (no delay, digest, provider step or schedule hold) inside the trigger's
   * own transaction, without a job: the messages exist when `trigger` returns. @default true
   */
  inlineInApp?: boolean;
  /**
   * The most walks one trigger call stores inline; an event whose audience would pass it (a large
   * topic) goes through jobs, so one trigger never holds the write lock for long. @default 1_000
   */
  inlineLimit?: number;
  /**
   * Members per fan-out job: an audience larger than this that is not stored inline (a topic) is
   * written at trigger time as one job per this many members, each walking its members in one commit
   * (in-app-only walks stored there, others queued as jobs of their own). @default 100
   */
  fanoutChunk?: number;
  /** Called with errors the background job loop could not hand to anyone. @default console.error */
  onError?: (error: unknown) => void;
  /**
   * Workflows written in code (`workflow()` or `novuWorkflows()` of `@tidings/framework`), run beside
   * the stored ones: triggered, listed and fetched by their id, never written.
   */
  workflows?: readonly CodeWorkflow[];
  /**
   * Caps per subscriber across workflows: at most `limit` messages (of `channel`, from workflows with
   * one of `tags`) in any window `per`; over one, a message is not sent (`mode: 'skip'`, a warning) or
   * waits for room (`'defer'`). Critical workflows pass every cap. More can be set with `caps.set`.
   */
  caps?: readonly CapInput[];
  /**
   * Deletes old rows, a batch at a time: messages older than `messages.days`, notifications (with
   * their decision records and digests) older than `notifications.days`. Expired messages are
   * deleted with or without it. See docs/expiry-and-retention.md. @default no retention: rows are kept
   */
  retention?: RetentionPolicyInput;
  /**
   * Where signed preference and unsubscribe links point: `baseUrl` is the public address under
   * which the preference pages are served (`tidings serve`'s, or where you mount them), `mailto` an
   * address for `List-Unsubscribe`'s mailto form. Without it, `preferences.link` is refused and
   * emails carry no unsubscribe headers. See docs/preferences-and-unsubscribe.md.
   */
  links?: LinksOptions;
  /**
   * Translation catalogs by locale (`{ en: { invoice: { due: 'Due {date}' } }, 'pt-BR': { … } }`):
   * nested keys, ICU MessageFormat texts. Catalogs stored with `translations.upsert` lie over these,
   * key by key. See docs/email-layouts-brands-translations.md.
   */
  translations?: Readonly<Record<string, { readonly [key: string]: unknown }>>;
  /** The locale of messages whose trigger and subscriber name none, and the last fallback. @default 'en' */
  defaultLocale?: string;
  /**
   * React components (React Email templates) that JSON email steps name by key:
   * `{ type: 'email', subject, component: 'Welcome', props: { name: '{{ subscriber.firstName }}' } }`.
   * Rendered with `@react-email/render`, which you install with `react` and `react-dom` (optional
   * peers of `@tidings/core`, imported on the first render). With components given, a workflow that
   * names another is refused when it is saved. See docs/email-layouts-brands-translations.md.
   */
  emailComponents?: EmailComponents;
  /**
   * Where the spans `tidings.trigger`, `tidings.job` and `tidings.provider.send` go. @default the
   * global tracer provider of `@opentelemetry/api` (no spans until an OpenTelemetry SDK registers one)
   */
  tracerProvider?: TracerProvider;
  /**
   * Where the engine's metrics go (see docs/observability.md). @default the global meter provider of
   * `@opentelemetry/api` as registered when `createTidings` is called (none: nothing is measured)
   */
  meterProvider?: MeterProvider;
}

const optionsSchema = z.object({
  environmentId: z.string().min(1).default('default'),
  organizationId: z.string().min(1).default('default'),
  outsideSchedule: z.enum(['defer', 'skip']).default('defer'),
  leaseMs: z.number().int().min(100).default(30_000),
  batchSize: z.number().int().min(1).max(10_000).default(100),
  maxAttempts: z.number().int().min(1).max(100).default(5),
  maxIdleMs: z.number().int().min(10).default(5_000),
  providerTimeoutMs: z.number().int().min(1).default(10_000),
  stepTimeoutMs: z.number().int().min(1).max(3_600_000).default(30_000),
  webhookTimeoutMs: z.number().int().min(1).max(60_000).default(5_000),
  deliveryConcurrency: z.number().int().min(1).max(1_000).default(200),
  circuitBreaker: z
    .union([z.literal(false), z.object({ failures: z.number().int().min(1).max(1_000).default(5), openMs: z.number().int().min(0).default(30_000) }).strict()])
    .default({ failures: 5, openMs: 30_000 }),
  inlineInApp: z.boolean().default(true),
  inlineLimit: z.number().int().min(0).max(100_000).default(1_000),
  fanoutChunk: z.number().int().min(1).max(10_000).default(100),
  caps: capsSchema.default([]),
  retention: retentionPolicySchema.default({ batchSize: 500 }),
  links: linksOptionsSchema.optional(),
  translations: z.record(localeSchema, catalogEntriesSchema).default({}),
  defaultLocale: localeSchema.default('en'),
});

/** The code workflows by id; anything else in the list, or an id given twice, is refused naming it. */
function codeWorkflowsOf(list: readonly CodeWorkflow[] | undefined): Map<string, CodeWorkflow> {
  const byId = new Map<string, CodeWorkflow>();
  for (const [i, item] of (list ?? []).entries()) {
    const refuse = (message: string) => new TidingsError('validation_failed', `workflows[${i}] ${message}`, { issues: [{ path: `workflows.${i}`, message }] });
    if (!isCodeWorkflow(item)) throw refuse("is not a code workflow: make it with workflow() of '@tidings/framework', or wrap @novu/framework workflows with novuWorkflows()");
    if (byId.has(item.id)) throw refuse(`repeats the workflow id "${item.id}"`);
    byId.set(item.id, item);
  }
  return byId;
}

/** The options that are objects or functions of the app's, not data the schema checks. */
const GIVEN_OPTIONS = new Set<string>(['storage', 'clock', 'providers', 'webhookTransport', 'httpStepTransport', 'onError', 'workflows', 'emailComponents', 'tracerProvider', 'meterProvider'] satisfies (keyof TidingsOptions)[]);

/** An option the engine does not know (a typo such as `inlineInAp`) is refused naming it, never ignored. */
function refuseUnknownOptions(options: object): void {
  const unknown = Object.keys(options).filter((key) => !(key in optionsSchema.shape) && !GIVEN_OPTIONS.has(key));
  if (unknown.length === 0) return;
  const message = (key: string) => `is not an option of createTidings${hint(key)}`;
  throw new TidingsError('validation_failed', `Invalid engine options: ${unknown.map((key) => `${key}: ${message(key)}`).join('; ')}`, { issues: unknown.map((key) => ({ path: key, message: message(key) })) });
}

/** ` (did you mean …?)` for an option one or two letters away from a known one. */
function hint(key: string): string {
  const known = [...Object.keys(optionsSchema.shape), ...GIVEN_OPTIONS];
  const near = known.find((name) => name.toLowerCase() === key.toLowerCase() || editDistance(name, key) <= 2);
  return near ? ` (did you mean ${near}?)` : '';
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** Creates an engine over a storage. Nothing runs in the background until `start()`. */
export function createTidings(options: TidingsOptions): Tidings {
  refuseUnknownOptions(options);
  const { clock = systemClock, onError = (error: unknown) => console.error('[tidings]', error) } = options;
  const { environmentId, organizationId, ...engineOptions } = parseInput(
    optionsSchema,
    Object.fromEntries(Object.entries(options).filter(([key]) => key in optionsSchema.shape)),
    'engine options',
  );
  const limited = new Map([...codeWorkflowsOf(options.workflows)].map(([id, code]) => [id, withStepTimeLimit(code, engineOptions.stepTimeoutMs)] as const));
  const code = codeCatalog(limited, environmentId, organizationId, clock.now().toISOString());
  const storage = codeCatalogStorage(options.storage, environmentId, code);
  const events = createEmitter();
  if (storage.live) publishLive(storage.live, events, environmentId, onError);
  // Enqueuing wakes the job loop once committed, wherever it happens (trigger, cancel, snooze, …).
  const engineStorage = wakingStorage(storage, (jobs) => {
    const earliestRunAt = jobs.reduce((min, job) => (job.runAt < min ? job.runAt : min), jobs[0]!.runAt);
    events.emit('jobs.enqueued', { count: jobs.length, earliestRunAt, kinds: [...new Set(jobs.map((job) => job.kind))] });
  });
  const telemetry = engineTelemetry(options, engineStorage, environmentId, events, onError);
  const ctx: EngineContext = {
    storage: engineStorage,
    clock,
    env: environmentId,
    organizationId,
    events,
    // Validated as nested objects of texts (catalogEntriesSchema).
    options: { ...engineOptions, translations: engineOptions.translations as Record<string, CatalogEntries>, emailComponents: emailComponentsOf(options.emailComponents) },
    walker: code.workflows.size === 0 ? stepListWalker : routerWalker(stepListWalker, codeWalker(code, engineOptions.defaultLocale), (workflow) => workflow._creatorId === 'code' && code.workflows.has(workflow._id)),
    now: () => clock.now().toISOString(),
    telemetry,
    sendsInFlight: sendsInFlight(),
  };
  const providers = new Map<string, Provider>();
  for (const provider of options.providers ?? []) {
    const key = `${provider.channel}:${provider.id}`;
    if (providers.has(key)) throw new TidingsError('validation_failed', `Two providers serve "${provider.id}" on ${provider.channel}`, { issues: [{ path: 'providers', message: `duplicate provider ${key}` }] });
    providers.set(key, provider);
  }
  // Workers know each other by the storage the user passed: each engine's code-catalog view is an object of its own.
  const takeBackDeadLeases = deadLeaseTakeBack(ctx, options.storage);
  const triggers = triggerApi(ctx);
  const jobs = engineJobs(ctx, providers, options.webhookTransport, triggers.runBurst, options.httpStepTransport);
  const runner = createJobRunner(ctx, jobs, options.storage, { exceptKinds: [...WEBHOOK_KINDS, ...FANOUT_KINDS], batchSize: engineOptions.batchSize, takeBackDeadLeases });
  const fanoutRunner = createJobRunner(ctx, jobs, options.storage, { kinds: FANOUT_KINDS, batchSize: FANOUT_PAGES_PER_BATCH, takeBackDeadLeases });
  const webhookRunner = createJobRunner(ctx, jobs, options.storage, { kinds: WEBHOOK_KINDS, batchSize: engineOptions.deliveryConcurrency, takeBackDeadLeases });
  // A retention policy's sweep and the link secret are made sure of once per engine, when jobs first run.
  let sweepReady: Promise<void> | null = null;
  const sweepEnsured = () => (sweepReady ??= Promise.all([ensureSweep(ctx), engineOptions.links && linkSecrets(ctx.storage.records, environmentId, ctx.now())]).then(() => undefined).catch((error: unknown) => {
    sweepReady = null;
    throw error;
  }));
  // Whether this engine enqueued jobs since `runDue` last began: then it claims at once, without asking first.
  let enqueuedSinceRun = true;
  events.on('jobs.enqueued', () => (enqueuedSinceRun = true));
  /**
   * Whether any job of the environment is claimable now: one read, where each lane's empty claim is
   * a statement of its own (three on every `runDue()` after a trigger whose walks were all inline).
   */
  const anyDue = async () => {
    const next = await ctx.storage.jobs.nextDueAt(environmentId);
    return next !== null && next <= ctx.now();
  };
  const loop = createJobLoop(ctx, runner, onError);
  const webhookLoop = createJobLoop(ctx, webhookRunner, onError);
  const fanoutLoop = createJobLoop(ctx, fanoutRunner, onError);

  return {
    environmentId,
    organizationId,
    storage,
    clock,
    workflows: workflowsApi(ctx),
    subscribers: withPrivacy(ctx, subscribersApi(ctx)),
    apiKeys: apiKeysApi(ctx),
    audit: auditApi(ctx),
    topics: withSubscriptions(ctx, topicsApi(ctx)),
    tenants: tenantsApi(ctx),
    layouts: layoutsApi(ctx),
    partials: partialsApi(ctx),
    brands: brandsApi(ctx),
    translations: translationsApi(ctx),
    preview: previewApi(ctx),
    integrations: integrationsApi(ctx),
    messages: messagesApi(ctx),
    preferences: withLinks(ctx, preferencesApi(ctx)),
    categories: categoriesApi(ctx),
    contexts: contextsApi(ctx),
    suppressions: suppressionsApi(ctx),
    webhooks: webhooksApi(ctx, options.webhookTransport !== undefined),
    caps: capsApi(ctx),
    activity: activityApi(ctx),
    idempotency: idempotencyApi(ctx),
    probeStorage: storageProbe(ctx),
    trigger: triggers.trigger,
    triggerBulk: triggers.triggerBulk,
    broadcast: triggers.broadcast,
    cancel: triggers.cancel,
    pending: triggers.pending,
    retry: retryApi(ctx),
    signal: signalsApi(ctx).signal,
    tokens: tokensApi(ctx),
    explain: (transactionId: string, subscriberId?: string) => storage.traces.list(environmentId, transactionId, subscriberId),
    async providerWebhook(integrationId: string, callback: ProviderCallback) {
      const applied = await applyProviderCallback(ctx, providers, integrationId, callback);
      for (const message of applied.updated) events.emit('message.delivery', { message });
      return { updated: applied.updated.length, held: applied.held };
    },
    runDue: async () => {
      await sweepEnsured();
      const claimAtOnce = enqueuedSinceRun;
      enqueuedSinceRun = false;
      if (!claimAtOnce && !(await anyDue())) return 0;
      let ran = 0;
      // Walks make outbox pages, outbox pages make deliveries, pages make walks: the lanes in turn until
      // the later two ran nothing (the walk lane runs what its own jobs enqueue before it returns).
      for (;;) {
        ran += await runner.runDue();
        const later = (await fanoutRunner.runDue()) + (await webhookRunner.runDue());
        if (later === 0) return ran;
        ran += later;
      }
    },
    start: () => {
      sweepEnsured().catch(onError);
      loop.start();
      webhookLoop.start();
      fanoutLoop.start();
    },
    stop: async () => {
      await Promise.all([loop.stop(), webhookLoop.stop(), fanoutLoop.stop()]);
      // Then what the providers keep open between sends (an SMTP pool); a later send opens anew.
      await Promise.all([...new Set(providers.values())].map((provider) => provider.close?.()));
    },
    health() {
      const stalledForMs = Math.round(Math.max(runner.stalledForMs(), webhookRunner.stalledForMs(), fanoutRunner.stalledForMs()));
      const stuckAfterMs = 2 * (engineOptions.stepTimeoutMs + 2 * engineOptions.providerTimeoutMs);
      return { jobLoop: { running: loop.running, stalledForMs, stuck: stalledForMs > stuckAfterMs }, writes: writeHealth(ctx) };
    },
    async recheckWrites(): Promise<WriteHealth> {
      if (writeHealth(ctx).ok) return writeHealth(ctx);
      await watchWrite(ctx, () => storage.transaction((tx) => tx.settings.put(environmentId, 'tidings:write-probe', ctx.now()))).catch(() => undefined);
      return writeHealth(ctx);
    },
    events: { on: events.on, off: events.off },
  };
}

export type { Tidings } from './tidings.js';
export type { TidingsEvents };
