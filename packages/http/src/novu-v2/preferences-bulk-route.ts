import { parseInput } from '@tidings/core/internal';
import { MAX_PREFERENCE_UPDATES, channelPreferencesSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { inboxPreferencesOf } from '../inbox/inbox-shapes.js';
import { route, type RouteDefinition } from '../routes/route.js';

/** `@novu/api`'s `subscribers.preferences.bulkUpdate` body: channel flags per workflow. */
export const bulkPreferencesBodySchema = z.strictObject({
  preferences: z
    .array(z.strictObject({ workflowId: z.string({ error: 'is required' }).trim().min(1, 'is required'), channels: channelPreferencesSchema }))
    .min(1, 'must hold at least one workflow')
    .max(MAX_PREFERENCE_UPDATES, `must hold at most ${MAX_PREFERENCE_UPDATES} workflows`),
});

/**
 * `PATCH /v2/subscribers/{id}/preferences/bulk`: several workflows' channel flags in one transaction
 * (all or, when one names a missing or critical workflow, none), answered as Novu does, with each
 * workflow's preference as the Inbox shows it.
 */
export function preferencesBulkRoute(): RouteDefinition {
  return route({
    method: 'patch',
    path: '/v2/subscribers/:subscriberId/preferences/bulk',
    summary: "Update several workflows' channel preferences of a subscriber at once (all or none)",
    status: 200,
    envelope: 'data',
    body: bulkPreferencesBodySchema,
    async handle({ tidings, params, body }) {
      const { preferences } = parseInput(bulkPreferencesBodySchema, body ?? {}, 'request body');
      const after = await tidings.preferences.updateMany(params['subscriberId']!, preferences.map(({ workflowId, channels }) => ({ workflowId, channels })));
      return inboxPreferencesOf(await tidings.workflows.list(), after, preferences.map((p) => p.workflowId));
    },
  });
}
