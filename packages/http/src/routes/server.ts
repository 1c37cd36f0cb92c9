import {
  TidingsError,
  type ChannelSettingsInput,
  type FieldIssue,
  type SuppressionInput,
  type WebhookEndpointInput,
  type WebhookEndpointPatch,
  type TriggerResult,
} from '@tidings/core';
import { currentActor, notFound, triggerEventIssues } from '@tidings/core/internal';
import { capsSchema, channelSettingsInputSchema, integrationInputSchema, snoozeInputSchema, subscriberIdListSchema, subscriberInputSchema, suppressionInputSchema, tenantInputSchema, webhookEndpointInputSchema, webhookEndpointPatchSchema, topicInputSchema, triggerEventSchema, workflowInputSchema, integrationPatchSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { HttpError } from '../errors.js';
import { feedItemToWire, integrationToWire, messageToWire } from '../wire.js';
import { keyedTriggers } from '../keyed-triggers.js';
import { route, type RouteDefinition } from './route.js';
import { retryRoute } from './retry-route.js';
import { subscriberDeletion } from './subscriber-deletion-route.js';
import { requireSubscriber } from './require-subscriber.js';

/** The body of `PUT /v1/caps`. */
const capsBodySchema = z.strictObject({ caps: capsSchema });

const subscribersBody = z.object({ subscribers: subscriberIdListSchema });
const feedQuery = z.object({
  limit: z.string().optional(),
  /** Novu's page number, from 0: the page starts `page × limit` messages in (after `cursor` when given). */
  page: z.string().regex(/^\d{1,9}$/, 'must be a whole number from 0').optional(),
  /** Novu's partial-payload filter (base64 JSON): refused by name, Tidings does not filter the feed by payload. */
  payload: z.string().optional(),
  /** Sent by `@novu/node`; Tidings has no feeds, so it is the one feed. */
  feedIdentifier: z.string().optional(),
  cursor: z.string().optional(),
  read: z.enum(['true', 'false']).optional(),
  seen: z.enum(['true', 'false']).optional(),
  archived: z.enum(['true', 'false']).optional(),
  /** Comma-separated workflow tags. */
  tags: z.string().optional(),
});

function subscriberIds(body: unknown): string[] {
  const parsed = subscribersBody.safeParse(body);
  if (!parsed.success) {
    throw new TidingsError('validation_failed', 'subscribers must be an array of subscriberIds', {
      issues: parsed.error.issues.map((i) => ({ path: ['subscribers', ...i.path.map(String)].join('.'), message: i.message })),
    });
  }
  return parsed.data.subscribers;
}

function boolQuery(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : value === 'true';
}

function limitQuery(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new TidingsError('validation_failed', 'limit must be a whole number', { issues: [{ path: 'limit', message: 'must be a whole number from 1 to 100' }] });
  return n;
}

/**
 * A single trigger answers as Novu's does: an event refused for what it says (invalid members, a
 * workflow that does not exist, a required payload variable left out, a scheduled delay without its
 * date) is a 422 the SDK throws — `workflow_not_found` as Novu's e2e test trigger-event expects. A
 * reused transactionId (our deliberate difference) and every other outcome is the 201 result, its
 * status saying what happened. `eventIssues` names the members of a refused event (the broadcast
 * route's event has no `to`).
 */
export function singleTriggerAnswer(result: TriggerResult, body: unknown, eventIssues: (body: unknown) => FieldIssue[] = triggerEventIssues): TriggerResult {
  const errors = result.error ?? [];
  if (result.status !== 'error' || errors.includes('duplicate_transaction_id')) return result;
  if (errors.includes('workflow_not_found')) {
    const name = (body as { name?: unknown }).name;
    throw new HttpError(422, 'workflow_not_found', { errors: { name: { messages: ['workflow_not_found'], value: name } } });
  }
  const issues = eventIssues(body);
  throw new TidingsError('validation_failed', errors.join('; '), { issues: issues.length > 0 ? issues : errors.map(issueOf) });
}

/** `payload.a: is required` as a field issue. */
function issueOf(error: string): FieldIssue {
  const at = error.indexOf(': ');
  return at < 0 ? { path: '', message: error } : { path: error.slice(0, at), message: error.slice(at + 2) };
}

type RouteTidings = Parameters<RouteDefinition['handle']>[0]['tidings'];

/**
 * Novu answers the feed and the counts of a subscriber who does not exist with a 400 (its e2e tests
 * get-notifications-feed and get-unseen-count), where the library reads an empty feed: the wire
 * checks first, in Novu's words.
 */
async function asNovuReads<T>(tidings: RouteTidings, subscriberId: string, read: () => Promise<T>, message?: string): Promise<T> {
  if (!(await tidings.subscribers.get(subscriberId))) {
    throw new HttpError(400, message ?? `Subscriber not found for this environment with the id: ${subscriberId}. Make sure to create a subscriber before fetching the feed.`);
  }
  return read();
}

const countsRefusal = (tidings: { environmentId: string }, params: Record<string, string>) =>
  `Subscriber ${params['subscriberId']} is not exist in environment ${tidings.environmentId}, please provide a valid subscriber identifier`;

/** What a server needs beyond the six operations, following Novu's paths and shapes. */
export function serverRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'post',
      path: '/v1/events/trigger',
      summary: 'Trigger one event (422 when it is invalid or names no workflow)',
      status: 201,
      envelope: 'data',
      body: triggerEventSchema,
      async handle({ tidings, body, idempotency }) {
        const [result] = await keyedTriggers(tidings.environmentId, idempotency, [body], (keyed) => tidings.triggerBulk(keyed as never));
        return singleTriggerAnswer(result!, body);
      },
    }),
    route({
      method: 'delete',
      path: '/v1/events/trigger/:transactionId',
      summary: 'Cancel the pending jobs of a trigger',
      status: 200,
      envelope: 'data',
      handle: async ({ tidings, params }) => (await tidings.cancel(params['transactionId']!)).cancelled >= 0,
    }),
    retryRoute(),
    route({ method: 'post', path: '/v1/subscribers', summary: 'Create or update a subscriber', status: 201, envelope: 'data', body: subscriberInputSchema, handle: ({ tidings, body }) => tidings.subscribers.upsert(body as never) }),
    route({ method: 'get', path: '/v1/subscribers/:subscriberId', summary: 'Get a subscriber', status: 200, envelope: 'data', handle: ({ tidings, params }) => requireSubscriber(tidings, params['subscriberId']!) }),
    route({
      method: 'put',
      path: '/v1/subscribers/:subscriberId',
      summary: 'Update a subscriber (only the members given change)',
      status: 200,
      envelope: 'data',
      body: subscriberInputSchema.omit({ subscriberId: true }),
      async handle({ tidings, params, body }) {
        await requireSubscriber(tidings, params['subscriberId']!);
        return tidings.subscribers.upsert({ ...(typeof body === 'object' && body !== null ? body : {}), subscriberId: params['subscriberId']! } as never);
      },
    }),
    subscriberDeletion('/v1/subscribers/:subscriberId', 'Delete a subscriber'),
    route({
      method: 'put',
      path: '/v1/subscribers/:subscriberId/credentials',
      summary: 'Set the subscriber’s credentials for a chat or push provider (device tokens replace the stored ones)',
      status: 200,
      envelope: 'data',
      body: channelSettingsInputSchema,
      handle: ({ tidings, params, body }) => tidings.subscribers.setCredentials(params['subscriberId']!, body as ChannelSettingsInput, 'replace'),
    }),
    route({
      method: 'patch',
      path: '/v1/subscribers/:subscriberId/credentials',
      summary: 'Add to the subscriber’s credentials for a chat or push provider (device tokens join the stored ones)',
      status: 200,
      envelope: 'data',
      body: channelSettingsInputSchema,
      handle: ({ tidings, params, body }) => tidings.subscribers.setCredentials(params['subscriberId']!, body as ChannelSettingsInput, 'append'),
    }),
    route({
      method: 'delete',
      path: '/v1/subscribers/:subscriberId/credentials/:providerId',
      summary: 'Remove the subscriber’s credentials for a provider',
      status: 204,
      envelope: 'raw',
      handle: ({ tidings, params }) => tidings.subscribers.deleteCredentials(params['subscriberId']!, params['providerId']!),
    }),
    route({
      method: 'get',
      path: '/v1/suppressions',
      summary: 'The suppression list, newest first (`channel`, `limit` 1–100, `cursor`)',
      status: 200,
      envelope: 'raw',
      handle: ({ tidings, query }) =>
        tidings.suppressions.list({
          ...(query['channel'] !== undefined && { channel: query['channel'] as 'email' }),
          ...(query['limit'] !== undefined && { limit: Number(query['limit']) }),
          ...(query['cursor'] !== undefined && { cursor: query['cursor'] }),
        }),
    }),
    route({ method: 'post', path: '/v1/suppressions', summary: 'Put an address on the suppression list', status: 201, envelope: 'data', body: suppressionInputSchema, handle: ({ tidings, body }) => tidings.suppressions.add(body as SuppressionInput) }),
    route({
      method: 'delete',
      path: '/v1/suppressions/:channel/:address',
      summary: 'Take an address off the suppression list',
      status: 200,
      envelope: 'data',
      async handle({ tidings, params }) {
        const removed = await tidings.suppressions.remove(params['channel'] as 'email', params['address']!);
        if (!removed) throw notFound('Suppression', params['address']!);
        return { removed };
      },
    }),
    route({ method: 'get', path: '/v1/caps', summary: 'The caps in force: `code` (given to createTidings, read-only) and `stored` (set here)', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.caps.get() }),
    route({
      method: 'put',
      path: '/v1/caps',
      summary: 'Replace the stored caps per subscriber across workflows (`{ caps: [] }` removes them)',
      status: 200,
      envelope: 'data',
      body: capsBodySchema,
      handle: async ({ tidings, body }) => ({ stored: await tidings.caps.set((body as Partial<z.infer<typeof capsBodySchema>> | undefined)?.caps as never) }),
    }),
    route({ method: 'get', path: '/v1/webhook-endpoints', summary: 'Your webhook endpoints, oldest first (secrets are never shown)', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.webhooks.list() }),
    route({
      method: 'post',
      path: '/v1/webhook-endpoints',
      summary: 'Add a webhook endpoint for event types; answers its secret, once',
      status: 201,
      envelope: 'data',
      body: webhookEndpointInputSchema,
      async handle({ tidings, body }) {
        const { endpoint, secret } = await tidings.webhooks.create(body as WebhookEndpointInput);
        return { ...endpoint, secret };
      },
    }),
    route({ method: 'get', path: '/v1/webhook-endpoints/:endpointId', summary: 'A webhook endpoint', status: 200, envelope: 'data', handle: ({ tidings, params }) => tidings.webhooks.get(params['endpointId']!) }),
    route({
      method: 'patch',
      path: '/v1/webhook-endpoints/:endpointId',
      summary: 'Change a webhook endpoint (`active: true` enables a disabled one)',
      status: 200,
      envelope: 'data',
      body: webhookEndpointPatchSchema,
      handle: ({ tidings, params, body }) => tidings.webhooks.update(params['endpointId']!, body as WebhookEndpointPatch),
    }),
    route({
      method: 'delete',
      path: '/v1/webhook-endpoints/:endpointId',
      summary: 'Remove a webhook endpoint and its deliveries',
      status: 204,
      envelope: 'raw',
      handle: ({ tidings, params }) => tidings.webhooks.delete(params['endpointId']!),
    }),
    route({
      method: 'get',
      path: '/v1/webhook-deliveries',
      summary: 'Webhook deliveries, newest first, with status, attempts and the last answer (`endpointId`, `status`, `limit`, `cursor`)',
      status: 200,
      envelope: 'raw',
      handle: ({ tidings, query }) =>
        tidings.webhooks.deliveries({
          ...(query['endpointId'] !== undefined && { endpointId: query['endpointId'] }),
          ...(query['status'] !== undefined && { status: query['status'] as 'pending' }),
          ...(query['limit'] !== undefined && { limit: Number(query['limit']) }),
          ...(query['cursor'] !== undefined && { cursor: query['cursor'] }),
        }),
    }),
    route({ method: 'get', path: '/v2/subscribers/:subscriberId/preferences', summary: 'Get subscriber preferences', status: 200, envelope: 'data', handle: ({ tidings, params }) => tidings.preferences.get(params['subscriberId']!) }),
    route({
      method: 'get',
      path: '/v1/subscribers/:subscriberId/notifications/feed',
      summary: 'The in-app feed, newest first (cursor pagination)',
      status: 200,
      envelope: 'raw',
      query: feedQuery,
      async handle({ tidings, params, query }) {
        const limit = limitQuery(query['limit']) ?? 10;
        if (query['payload'] !== undefined) {
          throw new TidingsError('validation_failed', 'payload is not supported: the feed is not filtered by payload', { issues: [{ path: 'payload', message: 'is not supported: the feed is not filtered by payload' }] });
        }
        const pageNumber = query['page'] === undefined ? 0 : Number(query['page']);
        const page = await asNovuReads(tidings, params['subscriberId']!, () => tidings.messages.feed(params['subscriberId']!, {
          limit,
          ...(pageNumber > 0 && { offset: pageNumber * limit }),
          ...(query['cursor'] !== undefined && { cursor: query['cursor'] }),
          ...(boolQuery(query['read']) !== undefined && { read: boolQuery(query['read'])! }),
          ...(boolQuery(query['seen']) !== undefined && { seen: boolQuery(query['seen'])! }),
          ...(boolQuery(query['archived']) !== undefined && { archived: boolQuery(query['archived'])! }),
          ...(query['tags'] !== undefined && { tags: query['tags'].split(',').map((t) => t.trim()).filter(Boolean) }),
        }));
        return { data: page.items.map(feedItemToWire), hasMore: page.nextCursor !== null, pageSize: limit, page: pageNumber, nextCursor: page.nextCursor };
      },
    }),
    route({
      method: 'get',
      path: '/v1/subscribers/:subscriberId/notifications/unseen',
      summary: 'Count of unseen in-app messages',
      status: 200,
      envelope: 'data',
      handle: async ({ tidings, params }) => ({ count: (await asNovuReads(tidings, params['subscriberId']!, () => tidings.messages.counts(params['subscriberId']!), countsRefusal(tidings, params))).unseen }),
    }),
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/:messageId/snooze',
      summary: 'Hide a message until `until`; it comes back unseen',
      status: 201,
      envelope: 'data',
      body: snoozeInputSchema,
      handle: async ({ tidings, params, body }) => messageToWire(await tidings.messages.snooze(params['subscriberId']!, params['messageId']!, body as never)),
    }),
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/:messageId/unsnooze',
      summary: 'End a snooze now',
      status: 201,
      envelope: 'data',
      handle: async ({ tidings, params }) => messageToWire(await tidings.messages.unsnooze(params['subscriberId']!, params['messageId']!)),
    }),
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/:messageId/archive',
      summary: 'Archive a message (out of the default feed and counts)',
      status: 201,
      envelope: 'data',
      handle: async ({ tidings, params }) => messageToWire((await tidings.messages.archive(params['subscriberId']!, [params['messageId']!]))[0]!),
    }),
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/:messageId/unarchive',
      summary: 'Bring an archived message back',
      status: 201,
      envelope: 'data',
      handle: async ({ tidings, params }) => messageToWire((await tidings.messages.unarchive(params['subscriberId']!, [params['messageId']!]))[0]!),
    }),
    route({
      method: 'get',
      path: '/v1/subscribers/:subscriberId/notifications/counts',
      summary: 'Total, unread and unseen in-app messages',
      status: 200,
      envelope: 'data',
      handle: ({ tidings, params }) => asNovuReads(tidings, params['subscriberId']!, () => tidings.messages.counts(params['subscriberId']!), countsRefusal(tidings, params)),
    }),
    route({ method: 'post', path: '/v1/topics', summary: 'Create a topic', status: 201, envelope: 'data', body: topicInputSchema, handle: async ({ tidings, body }) => tidings.topics.upsert(body as never) }),
    route({
      method: 'post',
      path: '/v1/topics/:topicKey/subscribers',
      summary: 'Add subscribers to a topic',
      status: 200,
      envelope: 'data',
      body: subscribersBody,
      async handle({ tidings, params, body }) {
        const result = await tidings.topics.addSubscribers(params['topicKey']!, subscriberIds(body));
        return { succeeded: result.succeeded, ...(result.notFound.length > 0 && { failed: { notFound: result.notFound } }) };
      },
    }),
    route({
      method: 'post',
      path: '/v1/topics/:topicKey/subscribers/removal',
      summary: 'Remove subscribers from a topic',
      status: 200,
      envelope: 'data',
      body: subscribersBody,
      handle: ({ tidings, params, body }) => tidings.topics.removeSubscribers(params['topicKey']!, subscriberIds(body)),
    }),
    route({ method: 'post', path: '/v1/integrations', summary: 'Create an integration (credentials are write-only)', status: 201, envelope: 'data', body: integrationInputSchema, handle: async ({ tidings, body }) => integrationToWire(await tidings.integrations.upsert(body as never), 'omitted') }),
    route({ method: 'get', path: '/v1/integrations', summary: 'Every integration of the environment (credentials: {})', status: 200, envelope: 'data', handle: async ({ tidings }) => (await tidings.integrations.list()).map((i) => integrationToWire(i, 'empty')) }),
    route({
      method: 'put',
      path: '/v1/integrations/:integrationId',
      summary: 'Change an integration: the members given replace the stored ones',
      status: 200,
      envelope: 'data',
      body: integrationPatchSchema,
      handle: async ({ tidings, params, body }) => integrationToWire(await tidings.integrations.update(params['integrationId']!, (body ?? {}) as never), 'omitted'),
    }),
    route({
      method: 'post',
      path: '/v1/integrations/:integrationId/set-primary',
      summary: "Make an integration its channel's primary",
      status: 200,
      envelope: 'data',
      handle: async ({ tidings, params }) => integrationToWire(await tidings.integrations.setPrimary(params['integrationId']!), 'omitted'),
    }),
    route({ method: 'post', path: '/v1/tenants', summary: 'Create or update a tenant', status: 201, envelope: 'data', body: tenantInputSchema, handle: ({ tidings, body }) => tidings.tenants.upsert(body as never) }),
    route({ method: 'post', path: '/v1/workflows', summary: 'Create or update a workflow', status: 201, envelope: 'data', body: workflowInputSchema, handle: ({ tidings, body }) => tidings.workflows.upsert(body as never, { by: currentActor() }) }),
    route({ method: 'get', path: '/v1/workflows', summary: 'Every workflow of the environment', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.workflows.list() }),
    route({
      method: 'get',
      path: '/v1/workflows/:workflowId',
      summary: 'A workflow by internal id, identifier or slug',
      status: 200,
      envelope: 'data',
      async handle({ tidings, params }) {
        const workflow = await tidings.workflows.get(params['workflowId']!);
        if (!workflow) throw notFound('Workflow', params['workflowId']!);
        return workflow;
      },
    }),
  ];
}
