import { systemClock, type Tidings } from '@tidings/core';
import { messageDeletionRoutes } from './routes/message-deletion-route.js';
import { subscriberStatusRoutes } from './routes/subscriber-status-routes.js';
import { notificationsV2Routes } from './novu-v2/notification-routes.js';
import { contextRoutes } from './novu-v2/context-routes.js';
import { actingAs, parseInput } from '@tidings/core/internal';
import { callerOf, checkScope } from './api-key-auth.js';
import { operatingRoutes } from './routes/operating-routes.js';
import { checkedParams } from './params.js';
import { Hono, type Context } from 'hono';
import type { AppEnv, HttpAppOptions } from './context.js';
import { activityRoutes } from './activity/activity-routes.js';
import { parseBody, readBody } from './body.js';
import { errorBody, HttpError, toHttp } from './errors.js';
import { healthRoutes } from './health.js';
import { idempotency } from './idempotency.js';
import { inboxRoutes } from './inbox/inbox-routes.js';
import { attachInboxSockets, type InboxSockets } from './inbox/inbox-sockets.js';
import type { Server as HttpServer } from 'node:http';
import { liveEvents } from './live.js';
import { metricsRoute } from './metrics-route.js';
import { notFoundMessage } from './not-served.js';
import { withoutNovuExtras } from './novu-extras.js';
import { openApiDocument } from './openapi.js';
import { providerWebhookRoutes } from './provider-webhooks.js';
import { preferencePageRoutes } from './preference-pages/preference-routes.js';
import { interfaceRoutes } from './routes/interface-routes.js';
import { serverRoutes } from './routes/server.js';
import { waitRoutes } from './routes/wait-routes.js';
import { tokenUrlRoute } from './token-url-route.js';
import { legacyRoutes } from './routes/legacy-routes.js';
import { broadcastRoute } from './routes/broadcast-route.js';
import { emailLookRoutes } from './routes/email-look-routes.js';
import { categoryRoutes } from './routes/category-routes.js';
import { revisionRoutes } from './routes/revision-routes.js';
import { workflowsV2Routes } from './novu-v2/workflow-routes.js';
import { subscriberV2Routes } from './novu-v2/subscriber-routes.js';
import { topicV2Routes } from './novu-v2/topic-routes.js';
import type { RouteDefinition } from './routes/route.js';

const API_KEY = /^ApiKey\s+(\S+)\s*$/;

/**
 * The Tidings HTTP API as a Hono app (a fetch handler): Novu's paths, `{ "data": … }` envelopes and
 * status codes, `Authorization: ApiKey <key>` per environment, idempotency keys, and `/openapi.json`.
 */
/** A previous Inbox key as the sessions check it; an unreadable `until` is refused at start, naming the option. */
function previousKeyOf(previous: { key: string; until: Date | string }): { apiKey: string; until: number } {
  const until = previous.until instanceof Date ? previous.until.getTime() : Date.parse(previous.until);
  if (typeof previous.key !== 'string' || previous.key === '') throw new TypeError('environments[].previousInboxKey.key must be a non-empty string');
  if (!Number.isFinite(until)) throw new TypeError('environments[].previousInboxKey.until must be a date or an ISO 8601 date-time');
  return { apiKey: previous.key, until };
}

export function createHttpApp(options: HttpAppOptions) {
  const engines = new Map<string, Tidings>();
  for (const { tidings, apiKeys } of options.environments) for (const key of apiKeys) engines.set(key, tidings);
  const environments = [...new Set(options.environments.map((e) => e.tidings))];
  const clock = options.clock ?? options.environments[0]?.tidings.clock ?? systemClock;
  const limit = options.bodyLimit ?? 1_048_576;
  const routes: RouteDefinition[] = [...interfaceRoutes(), ...serverRoutes(), ...legacyRoutes(), broadcastRoute(), ...subscriberV2Routes(), ...topicV2Routes(), ...contextRoutes(), ...subscriberStatusRoutes(), ...messageDeletionRoutes(), ...emailLookRoutes(), ...categoryRoutes(), ...revisionRoutes(), ...operatingRoutes(), ...waitRoutes()];
  const document = openApiDocument(routes);

  const app = new Hono<AppEnv>();

  app.onError((error, c) => {
    const { status, body, headers } = toHttp(error, c.req.path, clock.now());
    if (status === 500) (options.onError ?? ((e: unknown) => console.error('[tidings http]', e)))(error);
    return c.json(body, status as 400, headers);
  });
  app.notFound((c) => c.json(errorBody(404, notFoundMessage(c.req.method, c.req.path), c.req.path, clock.now()), 404));

  app.get('/openapi.json', (c) => c.json(document));
  healthRoutes(app, [...new Set(options.environments.map((e) => e.tidings))]);
  if (options.metrics) metricsRoute(app, options.metrics);

  const inboxEnvironments = options.environments.flatMap(({ tidings, apiKeys, applicationIdentifier, previousInboxKey }) =>
    applicationIdentifier !== undefined && apiKeys[0] !== undefined ? [{ tidings, applicationIdentifier, apiKey: apiKeys[0], ...(previousInboxKey && { previous: previousKeyOf(previousInboxKey) }) }] : [],
  );
  inboxRoutes(app, inboxEnvironments, options.inbox ?? {}, clock, limit);

  providerWebhookRoutes(app, [...new Set(options.environments.map((e) => e.tidings))], limit, options.trustProxy ?? false);
  preferencePageRoutes(app, [...new Set(options.environments.map((e) => e.tidings))]);
  tokenUrlRoute(app, [...new Set(options.environments.map((e) => e.tidings))], limit);

  app.use('/v1/*', authenticate);
  app.use('/v2/*', authenticate);

  async function authenticate(c: Context<AppEnv>, next: () => Promise<void>): Promise<Response | void> {
    // The Inbox's own routes authenticate with the subscriber's session token instead.
    if (c.req.path.startsWith('/v1/inbox/')) return next();
    const header = c.req.header('authorization');
    if (!header) throw new HttpError(401, 'Missing the Authorization header (Authorization: ApiKey <key>)');
    const match = API_KEY.exec(header);
    if (!match) throw new HttpError(401, 'The Authorization header must use the ApiKey scheme');
    const caller = await callerOf(match[1]!, engines, environments);
    if (!caller) throw new HttpError(401, 'API key not found');
    checkScope(caller, c.req.method, c.req.path);
    c.set('tidings', caller.tidings);
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > limit) throw new HttpError(413, `The request body is larger than ${limit} bytes`, {}, { connection: 'close' });
    const text = c.req.method === 'GET' || c.req.method === 'HEAD' ? '' : await readBody(c.req.raw, limit);
    c.set('bodyText', text);
    // Changes the request makes are recorded (audit log, revisions) as made by its key.
    return actingAs(caller.who, () => idempotency(c, next));
  }

  const liveStreams = new Set<() => void>();
  app.get('/v1/subscribers/:subscriberId/events', liveEvents(liveStreams));
  app.route('/', activityRoutes());
  app.route('/', workflowsV2Routes());
  app.route('/', notificationsV2Routes(clock, options.inbox?.maxSnoozeDurationHours ?? 720));

  for (const definition of routes) {
    app[definition.method](definition.path, async (c) => {
      const body = definition.textBody !== undefined ? c.get('bodyText') : withoutNovuExtras(`${definition.method.toUpperCase()} ${definition.path}`, parseBody(c.get('bodyText'), c.req.header('content-type')));
      const params = checkedParams(c.req.param() as Record<string, string>);
      const query = definition.query ? (parseInput(definition.query, c.req.query(), 'query') as Record<string, string>) : c.req.query();
      const idempotency = c.get('idempotency');
      const result = await definition.handle({ tidings: c.get('tidings'), params, query, body, ...(idempotency && { idempotency }) });
      if (definition.status === 204) return c.body(null, 204);
      return c.json(definition.envelope === 'data' ? { data: result ?? null } : result, definition.status);
    });
  }
  return Object.assign(app, {
    /** Ends every open live stream (Server-Sent Events), e.g. when the server shuts down. */
    closeLiveStreams() {
      for (const end of [...liveStreams]) end();
    },
    /**
     * Serves the Inbox's live updates (socket.io, and plain WebSockets) on the Node HTTP server this
     * app is mounted on; `tidings serve` does it. Close them before the server.
     */
    attachInboxSockets: (server: HttpServer): InboxSockets => attachInboxSockets(server, inboxEnvironments, clock),
  });
}

export type HttpApp = ReturnType<typeof createHttpApp>;
