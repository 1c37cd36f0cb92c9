import type { Tidings } from '@tidings/core';
import { parseInput } from '@tidings/core/internal';
import { CHANNELS, type ChannelPreferences, type SubscriptionPreferenceBatch, type TopicSubscriptionCreate } from '@tidings/core/schemas';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { parseBody } from '../body.js';
import type { AppEnv } from '../context.js';
import { scope } from './inbox-scope.js';
import { inboxSubscription, inboxSubscriptionPreference } from './subscription-shapes.js';

const flag = z.boolean({ error: 'must be true or false' }).optional();
/** Novu's channel flags, each optional, as its client sends them beside `enabled`. */
const channelFlags = Object.fromEntries(CHANNELS.map((channel) => [channel, flag])) as Record<(typeof CHANNELS)[number], typeof flag>;

/** The body of `POST …/topics/:topicKey/subscriptions`; the engine checks the preference filters. */
const createBodySchema = z.strictObject({
  identifier: z.string().optional(),
  name: z.string().optional(),
  topic: z.strictObject({ name: z.string().optional() }).optional(),
  preferences: z.array(z.unknown()).optional(),
});
/** The body of `PATCH …/topics/:topicKey/subscriptions/:identifier`. */
const updateBodySchema = z.strictObject({ name: z.string().optional(), preferences: z.array(z.unknown()).optional() });
/** The body of `PATCH /v1/inbox/subscriptions/:identifier/preferences/:workflowId`; a JSON Logic `condition` is the engine's to refuse. */
const preferenceBodySchema = z.strictObject({ enabled: flag, condition: z.unknown().optional(), ...channelFlags });
/** `PATCH /v1/inbox/preferences/bulk` when its items name subscriptions (the client's `bulkUpdatePreferences` of a subscription). */
const bulkBodySchema = z.strictObject({
  preferences: z.array(z.strictObject({ subscriptionIdentifier: z.string({ error: 'is required' }), workflowId: z.string({ error: 'is required' }), enabled: flag, condition: z.unknown().optional(), ...channelFlags })),
});

type Flags = Partial<Record<(typeof CHANNELS)[number], boolean | undefined>>;
const channelsOf = (flags: Flags): ChannelPreferences => Object.fromEntries(CHANNELS.flatMap((c) => (flags[c] === undefined ? [] : [[c, flags[c]]])));

const workflowsById = async (tidings: Tidings) => new Map((await tidings.workflows.list()).map((w) => [w._id, w] as const));

/** Whether a bulk preferences body changes subscriptions' preferences: some item names a subscription. */
export const namesSubscriptions = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && Array.isArray((input as { preferences?: unknown }).preferences) && (input as { preferences: unknown[] }).preferences.some((item) => typeof item === 'object' && item !== null && 'subscriptionIdentifier' in item);

/** Applies a bulk body whose items name subscriptions, all or none; answers each preference as Novu's client reads it. */
export async function subscriptionPreferencesBulk(tidings: Tidings, subscriberId: string, input: unknown) {
  const { preferences } = parseInput(bulkBodySchema, input, 'request body');
  const items: SubscriptionPreferenceBatch = preferences.map(({ subscriptionIdentifier, workflowId, enabled, condition, ...flags }) => ({
    subscriptionIdentifier,
    workflowId,
    ...(enabled !== undefined && { enabled }),
    ...(condition !== undefined && { condition }),
    channels: channelsOf(flags),
  }));
  const changes = await tidings.topics.subscriptions.updatePreferences(subscriberId, items);
  const workflows = await workflowsById(tidings);
  return changes.map((change) => inboxSubscriptionPreference(change.subscription.identifier, change.preference, workflows.get(change.preference.workflowId)!));
}

/**
 * Novu's Inbox routes for topic subscriptions, as `<Subscription />` of `@novu/react` calls them: each
 * scoped to the session's subscriber (another's subscription is not found), reading and writing
 * through `tidings.topics.subscriptions`. Mounted after the Inbox's session middleware.
 */
export function subscriptionRoutes(app: Hono<AppEnv>): void {
  const body = (c: Context<AppEnv>) => parseBody(c.get('bodyText'), c.req.header('content-type')) ?? {};

  app.get('/v1/inbox/topics/:topicKey/subscriptions', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const subscriptions = await tidings.topics.subscriptions.list(subscriberId, c.req.param('topicKey'));
    const workflows = await workflowsById(tidings);
    return c.json({ data: subscriptions.map((s) => inboxSubscription(s, workflows)) });
  });

  app.post('/v1/inbox/topics/:topicKey/subscriptions', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const input = parseInput(createBodySchema, body(c), 'request body');
    const created = await tidings.topics.subscriptions.create(subscriberId, c.req.param('topicKey'), {
      ...(input.identifier !== undefined && { identifier: input.identifier }),
      ...(input.name !== undefined && { name: input.name }),
      ...(input.topic?.name !== undefined && { topicName: input.topic.name }),
      ...(input.preferences !== undefined && { preferences: input.preferences as TopicSubscriptionCreate['preferences'] }),
    });
    return c.json({ data: inboxSubscription(created, await workflowsById(tidings)) }, 201);
  });

  app.get('/v1/inbox/topics/:topicKey/subscriptions/:identifier', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const found = await tidings.topics.subscriptions.get(subscriberId, c.req.param('topicKey'), {
      identifier: c.req.param('identifier'),
      workflowIds: c.req.queries('workflowIds') ?? [],
      tags: c.req.queries('tags') ?? [],
    });
    // Novu answers a subscription that is not there with no content; its client reads that as null.
    if (!found) return c.body(null, 204);
    return c.json({ data: inboxSubscription(found, await workflowsById(tidings)) });
  });

  app.patch('/v1/inbox/topics/:topicKey/subscriptions/:identifier', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const input = parseInput(updateBodySchema, body(c), 'request body');
    const updated = await tidings.topics.subscriptions.update(subscriberId, c.req.param('topicKey'), c.req.param('identifier'), {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.preferences !== undefined && { preferences: input.preferences as TopicSubscriptionCreate['preferences'] }),
    });
    return c.json({ data: inboxSubscription(updated, await workflowsById(tidings)) });
  });

  app.delete('/v1/inbox/topics/:topicKey/subscriptions/:identifier', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    await tidings.topics.subscriptions.delete(subscriberId, c.req.param('topicKey'), c.req.param('identifier'));
    return c.json({ data: { success: true } });
  });

  app.patch('/v1/inbox/subscriptions/:identifier/preferences/:workflowId', async (c) => {
    const { tidings, subscriberId } = await scope(c);
    const { enabled, condition, ...flags } = parseInput(preferenceBodySchema, body(c), 'request body');
    const identifier = c.req.param('identifier');
    const change = await tidings.topics.subscriptions.updatePreference(subscriberId, identifier, c.req.param('workflowId'), {
      ...(enabled !== undefined && { enabled }),
      ...(condition !== undefined && { condition }),
      channels: channelsOf(flags),
    });
    const workflows = await workflowsById(tidings);
    return c.json({ data: inboxSubscriptionPreference(identifier, change.preference, workflows.get(change.preference.workflowId)!) });
  });
}
