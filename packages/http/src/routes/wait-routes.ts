import { parseInput } from '@tidings/core/internal';
import { signalBodySchema, tokenOutputSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { route, type RouteDefinition } from './route.js';

const tokenQuerySchema = z.strictObject({
  transactionId: z.string().min(1, 'must not be empty').optional(),
  subscriberId: z.string().min(1, 'must not be empty').optional(),
  status: z.enum(['waiting', 'completed', 'timed_out']).optional(),
});
const completeBodySchema = z.strictObject({ output: tokenOutputSchema });

/**
 * Signals and tokens (docs/waits.md). `POST /v1/signals` `{ name, subscriberId?, data? }`: 201
 * `{ data: { id, resumed, cancelled } }`, 422 naming the field. `GET /v1/tokens` and `/v1/tokens/:id`
 * read tokens; `POST /v1/tokens/:id/complete` `{ output }` completes one with the API key (409 when
 * it was completed or timed out before).
 */
export const waitRoutes = (): RouteDefinition[] => [
  route({
    method: 'post',
    path: '/v1/signals',
    summary: 'Send an event: resume the runs waiting for it, cancel the runs whose cancelOn it matches',
    status: 201,
    envelope: 'data',
    body: signalBodySchema,
    handle({ tidings, body }) {
      const { name, ...rest } = parseInput(signalBodySchema, body ?? {}, 'body');
      return tidings.signal(name, rest);
    },
  }),
  route({
    method: 'get',
    path: '/v1/tokens',
    summary: 'List the tokens of a trigger or a subscriber',
    status: 200,
    envelope: 'data',
    query: tokenQuerySchema,
    handle: ({ tidings, query }) => tidings.tokens.list(query),
  }),
  route({
    method: 'get',
    path: '/v1/tokens/:id',
    summary: 'Get a token',
    status: 200,
    envelope: 'data',
    handle: ({ tidings, params }) => tidings.tokens.get(params['id']!),
  }),
  route({
    method: 'post',
    path: '/v1/tokens/:id/complete',
    summary: 'Complete a token: its run resumes with the output (once)',
    status: 200,
    envelope: 'data',
    body: completeBodySchema,
    handle({ tidings, params, body }) {
      const { output } = parseInput(completeBodySchema, body ?? {}, 'body');
      return tidings.tokens.complete(params['id']!, output);
    },
  }),
];
