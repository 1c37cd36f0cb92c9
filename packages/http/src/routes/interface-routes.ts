import { TidingsError } from '@tidings/core';
import { MAX_BULK_EVENTS, actionInputSchema, markAsInputSchema, preferencesPatchSchema, triggerEventSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { integrationToWire, messageToWire } from '../wire.js';
import { keyedTriggers } from '../keyed-triggers.js';
import { markRoute } from './mark-route.js';
import { route, type RouteDefinition } from './route.js';

/** The six operations of the published interface. */
export function interfaceRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'patch',
      path: '/v2/subscribers/:subscriberId/preferences',
      summary: 'Update subscriber preferences (global, or one workflow with workflowId)',
      status: 200,
      envelope: 'data',
      body: preferencesPatchSchema,
      handle: ({ tidings, params, body }) => tidings.preferences.update(params['subscriberId']!, (body ?? {}) as never),
    }),
    markRoute({
      path: '/v1/subscribers/:subscriberId/messages/mark-as',
      summary: 'Mark messages as seen, read, unseen or unread',
      body: markAsInputSchema,
      mark: (tidings, subscriberId, body) => tidings.messages.markAs(subscriberId, body),
    }),
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/:messageId/actions/:type',
      summary: 'Mark a message action (type: primary or secondary)',
      status: 201,
      envelope: 'data',
      body: actionInputSchema,
      handle: async ({ tidings, params, body }) => messageToWire(await tidings.messages.action(params['subscriberId']!, params['messageId']!, params['type']!, body as never)),
    }),
    route({
      method: 'get',
      path: '/v1/integrations/active',
      summary: 'Active integrations of the environment',
      status: 200,
      envelope: 'data',
      handle: async ({ tidings }) => (await tidings.integrations.listActive()).map((i) => integrationToWire(i, 'empty')),
    }),
    route({
      method: 'get',
      path: '/v1/topics/:topicKey/subscribers/:externalSubscriberId',
      summary: 'Check whether a subscriber belongs to a topic (404 when not)',
      status: 200,
      envelope: 'data',
      async handle({ tidings, params }) {
        const subscription = await tidings.topics.getSubscription(params['topicKey']!, params['externalSubscriberId']!);
        if (!subscription) {
          throw new TidingsError('not_found', `Subscriber ${params['externalSubscriberId']} not found for topic ${params['topicKey']} in the environment ${tidings.environmentId}`);
        }
        return subscription;
      },
    }),
    route({
      method: 'post',
      path: '/v1/events/trigger/bulk',
      summary: 'Trigger up to 100 events in one call',
      status: 201,
      envelope: 'data',
      body: z.object({ events: z.array(triggerEventSchema) }),
      handle: ({ tidings, body, idempotency }) => {
        const events = (body as { events?: unknown } | undefined)?.events;
        // Not a list, empty or too long: the engine refuses the whole call.
        if (!Array.isArray(events) || events.length === 0 || events.length > MAX_BULK_EVENTS) return tidings.triggerBulk(events as never);
        return keyedTriggers(tidings.environmentId, idempotency, events, (keyed) => tidings.triggerBulk(keyed as never));
      },
    }),
  ];
}
