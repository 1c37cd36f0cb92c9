import { TidingsError, type Clock, type Subscriber, type SubscriberInput, type Tidings } from '@tidings/core';
import { contextKeys, parseInput } from '@tidings/core/internal';
import { contextPayloadSchema } from '@tidings/core/schemas';
import { CHANNELS, MAX_PREFERENCE_UPDATES, SEVERITIES } from '@tidings/core/schemas';
import type { Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { z } from 'zod';
import { parseBody, readBody } from '../body.js';
import type { AppEnv } from '../context.js';
import type { InboxOptions } from './inbox-options.js';
import { HttpError } from '../errors.js';
import { notificationRoutes } from './notification-routes.js';
import { inboxGlobalPreference, inboxPreferencesOf, inboxWorkflowPreference } from './inbox-shapes.js';
import { issueToken, readToken, SESSION_MS, validContextHash, validSubscriberHash, type InboxEnvironment } from './session.js';
import { scope } from './inbox-scope.js';
import { namesSubscriptions, subscriptionPreferencesBulk, subscriptionRoutes } from './subscription-routes.js';

const ALLOWED_HEADERS = ['authorization', 'content-type', 'novu-api-version', 'novu-client-version', 'novu-application-identifier'];

/** The profile members a session body may carry; all of them apply only when the session creates the subscriber. */
const PROFILE_MEMBERS = ['firstName', 'lastName', 'email', 'phone', 'avatar', 'locale', 'data', 'timezone'] as const;
/** What a session sets of a subscriber that exists: what the browser knows best. */
const BROWSER_MEMBERS = ['timezone', 'locale'] as const;
/** Preference changes made through the Inbox are recorded as such in the audit trail. */
const INBOX = { origin: 'inbox' } as const;

/**
 * The upsert a session makes of the subscriber it opens, or null when nothing changes: the whole
 * profile the body gives for one that does not exist (or when `updatesProfile`), else only the
 * browser's members that differ from the stored ones.
 */
function sessionUpsert(given: Record<string, unknown>, subscriberId: string, existing: Subscriber | null, updatesProfile: boolean): Record<string, unknown> | null {
  const members: readonly string[] = existing === null || updatesProfile ? PROFILE_MEMBERS : BROWSER_MEMBERS;
  const changes = Object.fromEntries(members.filter((key) => given[key] !== undefined).map((key) => [key, given[key]]));
  if (existing !== null && !updatesProfile && Object.entries(changes).every(([key, value]) => existing[key as keyof Subscriber] === value)) return null;
  return { ...changes, subscriberId };
}

/** The body of `PATCH /v1/inbox/preferences/bulk`: a workflow and channel flags per item (and Tidings' digest cadence), at most MAX_PREFERENCE_UPDATES. */
const channelFlag = z.boolean({ error: 'must be true or false' }).optional();
const bulkPreferencesSchema = z.object({
  preferences: z
    .array(z.object({ workflowId: z.string({ error: 'is required' }).min(1, 'is required'), in_app: channelFlag, email: channelFlag, sms: channelFlag, chat: channelFlag, push: channelFlag, digest: z.string().nullable().optional() }))
    .max(MAX_PREFERENCE_UPDATES, `must hold at most ${MAX_PREFERENCE_UPDATES} items`),
});

/** The contexts a session opens with, by type (ids only: a session scopes, it does not store data). */
function sessionContext(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  const { context: parsed } = parseInput(z.object({ context: contextPayloadSchema }), { context: raw }, 'session');
  return Object.fromEntries(Object.entries(parsed).map(([type, value]) => [type, typeof value === 'string' ? value : value.id]));
}

/** Unread, unarchived, unsnoozed in-app messages of the session's contexts, in total and by severity (the bell). */
export async function unreadCounts(tidings: Tidings, subscriberId: string, context: Readonly<Record<string, string>>) {
  const base = { read: false, archived: false, snoozed: false, context } as const;
  const counted = await tidings.messages.count(subscriberId, [base, ...SEVERITIES.map((severity) => ({ ...base, severity }))]);
  const [total, ...bySeverity] = counted.map((c) => c.count);
  return { total: total!, severity: Object.fromEntries(SEVERITIES.map((s, i) => [s, bySeverity[i]!])) as Record<(typeof SEVERITIES)[number], number> };
}

function channelFlags(body: unknown): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  if (typeof body !== 'object' || body === null) return flags;
  for (const channel of CHANNELS) {
    const value = (body as Record<string, unknown>)[channel];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new TidingsError('validation_failed', `${channel} must be true or false`, { issues: [{ path: channel, message: 'must be true or false' }] });
    flags[channel] = value;
  }
  return flags;
}

/** The preferences the Inbox lists: global first, then each workflow's (`criticality` picks which). */
async function inboxPreferences(tidings: Tidings, subscriber: Subscriber, query: { criticality?: string; tags: string[]; severity: string[] }) {
  const preferences = await tidings.preferences.get(subscriber.subscriberId);
  const workflows = await tidings.workflows.list();
  const byIdentifier = new Map(workflows.map((w) => [w.identifier, w] as const));
  const criticality = query.criticality ?? 'nonCritical';
  const rows: ReturnType<typeof inboxWorkflowPreference>[] = [];
  if (criticality !== 'critical') for (const p of preferences.workflows) rows.push(inboxWorkflowPreference(p, byIdentifier.get(p.workflow.identifier)!));
  if (criticality !== 'nonCritical') {
    for (const w of workflows.filter((x) => x.critical && x.active && !x.draft)) {
      const channels = Object.fromEntries(CHANNELS.filter((c) => w.steps.some((s) => s.active && s.template.type === c)).map((c) => [c, true]));
      rows.push(inboxWorkflowPreference({ enabled: true, channels, overrides: [] }, w));
    }
  }
  const kept = rows.filter((r) => (query.tags.length === 0 || query.tags.some((t) => r.workflow.tags.includes(t))) && (query.severity.length === 0 || query.severity.includes(r.workflow.severity)));
  return [inboxGlobalPreference(preferences.global), ...kept];
}

/**
 * Novu's Inbox API (`/v1/inbox`), as its unchanged browser client (`@novu/js`, `<Inbox />`) calls it:
 * a session opened with the environment's public application identifier and the subscriber's HMAC
 * hash, then Bearer-token calls scoped to that subscriber. CORS is open (`*`): the token, not a
 * cookie, is the credential.
 */
export function inboxRoutes(app: Hono<AppEnv>, environments: readonly InboxEnvironment[], options: InboxOptions, clock: Clock, bodyLimit: number): void {
  const byIdentifier = new Map(environments.map((e) => [e.applicationIdentifier, e] as const));
  const requireHash = options.requireSubscriberHash ?? true;
  const maxSnoozeDurationHours = options.maxSnoozeDurationHours ?? 720;
  const sessionUpdatesProfile = options.sessionUpdatesProfile ?? false;

  app.use('/v1/inbox/*', cors({ origin: '*', allowHeaders: ALLOWED_HEADERS, allowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'], maxAge: 600 }));
  app.use('/v1/inbox/*', async (c, next) => {
    // The token first: a caller without one never gets the server to read (or wait for) a body.
    if (c.req.path !== '/v1/inbox/session') {
      const bearer = /^Bearer\s+(\S+)\s*$/.exec(c.req.header('authorization') ?? '')?.[1];
      c.set('inbox', readToken(bearer, byIdentifier, clock.now().getTime()));
    }
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > bodyLimit) throw new HttpError(413, `The request body is larger than ${bodyLimit} bytes`, {}, { connection: 'close' });
    c.set('bodyText', c.req.method === 'GET' || c.req.method === 'HEAD' ? '' : await readBody(c.req.raw, bodyLimit));
    return next();
  });
  const body = (c: Context<AppEnv>) => parseBody(c.get('bodyText'), c.req.header('content-type'));

  app.post('/v1/inbox/session', async (c) => {
    const input = (body(c) ?? {}) as { applicationIdentifier?: unknown; subscriberHash?: unknown; subscriber?: unknown; subscriberId?: unknown; defaultSchedule?: unknown; context?: unknown; contextHash?: unknown };
    const environment = typeof input.applicationIdentifier === 'string' ? byIdentifier.get(input.applicationIdentifier) : undefined;
    if (!environment) throw new HttpError(400, 'Please provide a valid application identifier');
    const given = typeof input.subscriber === 'object' && input.subscriber !== null ? (input.subscriber as Record<string, unknown>) : { subscriberId: input.subscriberId };
    const subscriberId = given['subscriberId'];
    if (typeof subscriberId !== 'string' || subscriberId === '') throw new TidingsError('validation_failed', 'subscriber.subscriberId is required', { issues: [{ path: 'subscriber.subscriberId', message: 'is required' }] });
    const hashed = validSubscriberHash(environment, subscriberId, input.subscriberHash, clock.now().getTime());
    if (requireHash && !hashed) throw new HttpError(400, 'Please provide a valid HMAC hash');
    const context = sessionContext(input.context);
    if (requireHash && input.context !== undefined && input.context !== null && !validContextHash(environment, input.context, input.contextHash, clock.now().getTime())) {
      throw new HttpError(400, 'Please provide a valid context HMAC hash (contextHash)');
    }
    const { tidings } = environment;
    const upsert = sessionUpsert(given, subscriberId, await tidings.subscribers.get(subscriberId), sessionUpdatesProfile && hashed);
    if (upsert !== null) await tidings.subscribers.upsert(upsert as SubscriberInput);
    if (input.defaultSchedule !== undefined && (await tidings.preferences.get(subscriberId)).global.schedule === undefined) {
      await tidings.preferences.update(subscriberId, { schedule: input.defaultSchedule as never }, INBOX);
    }
    const unreadCount = await unreadCounts(tidings, subscriberId, context);
    const token = issueToken(environment, subscriberId, clock.now().getTime() + SESSION_MS, context);
    const keys = contextKeys(context);
    return c.json({ data: { token, totalUnreadCount: unreadCount.total, unreadCount, removeNovuBranding: true, isDevelopmentMode: false, maxSnoozeDurationHours, applicationIdentifier: environment.applicationIdentifier, ...(keys.length > 0 && { contextKeys: keys }) } }, 201);
  });

  notificationRoutes(app, {
    base: '/v1/inbox/notifications',
    scopeOf: (c) => scope(c),
    deleteOne: '/:id/delete',
    action: { complete: '/:id/complete', revert: '/:id/revert', typeOf: (_c, given) => (given as { actionType?: unknown } | undefined)?.actionType as string },
    clock,
    maxSnoozeDurationHours,
  });

  app.get('/v1/inbox/preferences', async (c) => {
    const { tidings, subscriber } = await scope(c);
    const queries = c.req.queries();
    const criticality = c.req.query('criticality');
    const rows = await inboxPreferences(tidings, subscriber, {
      ...(criticality !== undefined && { criticality }),
      tags: [...(queries['tags[]'] ?? []), ...(queries['tags'] ?? [])],
      severity: [...(queries['severity[]'] ?? []), ...(queries['severity'] ?? [])],
    });
    return c.json({ data: rows });
  });
  app.get('/v1/inbox/preferences/global', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    return c.json({ data: inboxGlobalPreference((await tidings.preferences.get(subscriberId)).global) });
  });
  app.patch('/v1/inbox/preferences', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const input = body(c) as { schedule?: unknown } | undefined;
    // The client sends only what changed (`{ isEnabled: false }` from the switch): merge it into the stored schedule.
    const stored = input?.schedule === undefined ? undefined : (await tidings.preferences.get(subscriberId)).global.schedule;
    const schedule = input?.schedule === undefined ? undefined : { ...stored, ...(input.schedule as object) };
    const after = await tidings.preferences.update(subscriberId, { channels: channelFlags(input), ...(schedule !== undefined && { schedule: schedule as never }) }, INBOX);
    return c.json({ data: inboxGlobalPreference(after.global) });
  });
  app.patch('/v1/inbox/preferences/bulk', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    // A subscription's `bulkUpdatePreferences` (a group row of `<Subscription />`) names its subscription in each item.
    if (namesSubscriptions(body(c))) return c.json({ data: await subscriptionPreferencesBulk(tidings, subscriberId, body(c)) });
    const { preferences } = parseInput(bulkPreferencesSchema, body(c) ?? {}, 'request body');
    // One transaction for the whole list: every item applies, or (a missing or critical workflow) none.
    const after = await tidings.preferences.updateMany(subscriberId, preferences.map(({ workflowId, digest, ...channels }) => ({ workflowId, channels, ...(digest !== undefined && { digest }) })), INBOX);
    return c.json({ data: inboxPreferencesOf(await tidings.workflows.list(), after, preferences.map((p) => p.workflowId)) });
  });
  app.patch('/v1/inbox/preferences/:workflow', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const ref = c.req.param('workflow');
    const input = body(c);
    // Tidings' digest cadence rides beside the channel flags; the engine checks it.
    const digest = typeof input === 'object' && input !== null ? (input as { digest?: unknown }).digest : undefined;
    const after = await tidings.preferences.update(subscriberId, { workflowId: ref, channels: channelFlags(input), ...(digest !== undefined && { digest: digest as string | null }) }, INBOX);
    return c.json({ data: inboxPreferencesOf(await tidings.workflows.list(), after, [ref])[0] });
  });
  subscriptionRoutes(app);
}
