import { parseInput } from '@tidings/core/internal';
import { markValueSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { requireSubscriber } from './require-subscriber.js';
import { route, type RouteDefinition } from './route.js';

/** `POST /v1/subscribers/:id/messages/mark-all` (MarkAllMessageAsRequestDto): `feedIdentifier` is accepted; Tidings has one feed. */
const markAllSchema = z.strictObject({ markAs: markValueSchema, feedIdentifier: z.union([z.string(), z.array(z.string())]).optional() });
/**
 * `PATCH /v1/subscribers/:id/online-status` (UpdateSubscriberOnlineFlagRequestDto: `isOnline`).
 * `@novu/node` 2.x's `updateOnlineStatus` sends the flag as `online`, taken the same.
 */
const flag = z.boolean({ error: 'must be true or false' });
const onlineSchema = z
  .strictObject({ isOnline: flag.optional(), online: flag.optional() })
  .refine((body) => (body.isOnline === undefined) !== (body.online === undefined), { message: 'is required: true or false', path: ['isOnline'] })
  .transform((body) => ({ isOnline: (body.isOnline ?? body.online)! }));

/** Novu's v1 routes for a subscriber's presence and for marking their whole feed (`@novu/api` and `@novu/node`). */
export function subscriberStatusRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/mark-all',
      summary: "Mark every in-app message of the subscriber read, seen, unread or unseen; answers how many changed",
      status: 201,
      envelope: 'data',
      body: markAllSchema,
      async handle({ tidings, params, body }) {
        const { markAs } = parseInput(markAllSchema, body ?? {}, 'request body');
        const subscriber = await requireSubscriber(tidings, params['subscriberId']!);
        return (await tidings.messages.markAll(subscriber.subscriberId, markAs)).length;
      },
    }),
    route({
      method: 'patch',
      path: '/v1/subscribers/:subscriberId/online-status',
      summary: 'Set whether the subscriber is online (going offline records when they were last online)',
      status: 200,
      envelope: 'data',
      body: onlineSchema,
      async handle({ tidings, params, body }) {
        const { isOnline } = parseInput(onlineSchema, body ?? {}, 'request body');
        const subscriber = await requireSubscriber(tidings, params['subscriberId']!);
        return tidings.subscribers.upsert({ subscriberId: subscriber.subscriberId, isOnline, ...(!isOnline && { lastOnlineAt: tidings.clock.now().toISOString() }) });
      },
    }),
  ];
}
