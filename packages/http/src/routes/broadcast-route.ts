import { broadcastEventIssues } from '@tidings/core/internal';
import { broadcastEventSchema } from '@tidings/core/schemas';
import { keyedTriggers } from '../keyed-triggers.js';
import { route, type RouteDefinition } from './route.js';
import { singleTriggerAnswer } from './server.js';

/**
 * `POST /v1/events/trigger/broadcast` (`novu.broadcast` in `@novu/node`, `triggerBroadcast` in
 * `@novu/api`): one event for every subscriber of the environment, through `tidings.broadcast`.
 * Answers as the single trigger route does: 201 `{ data: { acknowledged, status, transactionId } }`,
 * a 422 for an invalid event or one naming no workflow, and an idempotency key's retry finds the
 * broadcast its first attempt stored.
 */
export function broadcastRoute(): RouteDefinition {
  return route({
    method: 'post',
    path: '/v1/events/trigger/broadcast',
    summary: 'Trigger one event for every subscriber of the environment (422 when it is invalid or names no workflow)',
    status: 201,
    envelope: 'data',
    body: broadcastEventSchema,
    async handle({ tidings, body, idempotency }) {
      const [result] = await keyedTriggers(tidings.environmentId, idempotency, [body], async ([event]) => [await tidings.broadcast(event as never, { refused: 'answer' })]);
      return singleTriggerAnswer(result!, body, broadcastEventIssues);
    },
  });
}
