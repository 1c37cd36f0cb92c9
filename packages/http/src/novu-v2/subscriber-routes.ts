import { isTidingsError, type Subscriber, type SubscriberInput } from '@tidings/core';
import { parseInput } from '@tidings/core/internal';
import { HttpError } from '../errors.js';
import { route, type RouteDefinition, type RouteInput } from '../routes/route.js';
import { subscriberDeletion } from '../routes/subscriber-deletion-route.js';
import {
  bulkSubscribersSchema,
  createSubscriberSchema,
  failIfExistsQuery,
  patchSubscriberSchema,
  searchSubscribersQuery,
  type SearchSubscribersQuery,
} from './people-schemas.js';
import { countMatches, cursor, scanPage, type IdPager } from './scan-page.js';
import { requireSubscriber } from '../routes/require-subscriber.js';
import { preferencesBulkRoute } from './preferences-bulk-route.js';

type RouteTidings = RouteInput['tidings'];

/** The environment's subscriberIds a page at a time (`tidings.subscribers.page`). */
const subscriberIds = (tidings: RouteTidings): IdPager => (after, limit) => tidings.subscribers.page({ after, limit });
const loadSubscribers = (tidings: RouteTidings) => (ids: string[]) => tidings.subscribers.getMany(ids);

const contains = (value: string | null | undefined, part: string) => (value ?? '').toLowerCase().includes(part.toLowerCase());

/** Novu's search filters: each one given must match, as a part of the value in any case; `name` is "first last". */
function subscriberFilter(query: SearchSubscribersQuery): ((s: Subscriber) => boolean) | undefined {
  const { email, phone, subscriberId, name } = query;
  if (email === undefined && phone === undefined && subscriberId === undefined && name === undefined) return undefined;
  return (s) =>
    (email === undefined || contains(s.email, email)) &&
    (phone === undefined || contains(s.phone, phone)) &&
    (subscriberId === undefined || contains(s.subscriberId, subscriberId)) &&
    (name === undefined || contains([s.firstName, s.lastName].filter((part) => part !== null && part !== '').join(' '), name));
}

/**
 * `@novu/api` 3.x's subscriber routes (`subscribers.create` / `retrieve` / `patch` / `delete` /
 * `search`) and the bulk create of both SDKs (`createBulk`, `@novu/node`'s `bulkCreate`), on
 * `tidings.subscribers`. Search has no index to ask: it pages through the environment's
 * subscriberIds (see scan-page.ts for what that serves of Novu's pagination).
 */
export function subscriberV2Routes(): RouteDefinition[] {
  return [
    route({
      method: 'post',
      path: '/v2/subscribers',
      summary: 'Create a subscriber, or update the one with this subscriberId (`failIfExists=true`: 409 instead)',
      status: 201,
      envelope: 'data',
      body: createSubscriberSchema,
      query: failIfExistsQuery,
      async handle({ tidings, body, query }) {
        const input = parseInput(createSubscriberSchema, body ?? {}, 'subscriber');
        if ((query as { failIfExists?: boolean }).failIfExists) {
          const existing = await tidings.subscribers.get(input.subscriberId);
          // Novu answers a SubscriberResponseDto with the 409: @novu/api throws it as its SubscriberResponseDto error.
          if (existing) throw new HttpError(409, `Subscriber: ${input.subscriberId} already exists`, { ...existing });
        }
        return tidings.subscribers.upsert(input as SubscriberInput);
      },
    }),
    route({
      method: 'get',
      path: '/v2/subscribers',
      summary: 'Search subscribers (email, phone, subscriberId, name: parts of the value in any case), forward pages in subscriberId order',
      status: 200,
      envelope: 'raw',
      query: searchSubscribersQuery,
      async handle({ tidings, query }) {
        const q = query as unknown as SearchSubscribersQuery;
        const filter = subscriberFilter(q);
        const source = { ids: subscriberIds(tidings), load: loadSubscribers(tidings) };
        const [page, count] = await Promise.all([
          scanPage({
            ...source,
            idOf: (s: Subscriber) => s.subscriberId,
            matches: filter ?? (() => true),
            after: q.after === undefined ? null : cursor.decode(q.after, 'after'),
            includeCursor: q.includeCursor ?? false,
            limit: q.limit,
          }),
          countMatches({ ...source, ...(filter && { matches: filter }) }),
        ]);
        return { data: page.items, next: page.next, previous: null, ...count };
      },
    }),
    route({ method: 'get', path: '/v2/subscribers/:subscriberId', summary: 'Retrieve a subscriber', status: 200, envelope: 'data', handle: ({ tidings, params }) => requireSubscriber(tidings, params['subscriberId']!) }),
    route({
      method: 'patch',
      path: '/v2/subscribers/:subscriberId',
      summary: 'Change a subscriber: only the members given change, null clears one (404 when it does not exist)',
      status: 200,
      envelope: 'data',
      body: patchSubscriberSchema,
      async handle({ tidings, params, body }) {
        const patch = parseInput(patchSubscriberSchema, body ?? {}, 'subscriber change');
        const subscriberId = params['subscriberId']!;
        await requireSubscriber(tidings, subscriberId);
        return tidings.subscribers.upsert({ ...patch, subscriberId } as SubscriberInput);
      },
    }),
    preferencesBulkRoute(),
    subscriberDeletion('/v2/subscribers/:subscriberId', 'Delete a subscriber with its preferences and topic subscriptions (404 when it does not exist)'),
    route({
      method: 'post',
      path: '/v1/subscribers/bulk',
      summary: `Create or update up to 500 subscribers: { created, updated, failed } by subscriberId, in the order given`,
      status: 201,
      envelope: 'data',
      body: bulkSubscribersSchema,
      async handle({ tidings, body }) {
        const { subscribers } = parseInput(bulkSubscribersSchema, body ?? {}, 'subscribers');
        const known = new Set((await tidings.subscribers.getMany(subscribers.map((s) => s.subscriberId))).map((s) => s.subscriberId));
        const created: { subscriberId: string }[] = [];
        const updated: { subscriberId: string }[] = [];
        const failed: { subscriberId: string; message: string }[] = [];
        // One at a time, in order: the same subscriberId twice is created, then updated, as in Novu.
        for (const item of subscribers) {
          try {
            await tidings.subscribers.upsert(item as SubscriberInput);
          } catch (error) {
            if (!isTidingsError(error, 'validation_failed')) throw error;
            failed.push({ subscriberId: item.subscriberId, message: error.message });
            continue;
          }
          (known.has(item.subscriberId) ? updated : created).push({ subscriberId: item.subscriberId });
          known.add(item.subscriberId);
        }
        return { created, updated, failed };
      },
    }),
  ];
}
