import { parseInput } from '@tidings/core/internal';
import { idSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { route } from './route.js';

const retryBodySchema = z.object({ subscriberId: idSchema }).strict();

/**
 * `POST /v1/notifications/:transactionId/retry` with `{ subscriberId }`: sends again the subscriber's
 * steps of the trigger that failed for good (`tidings.retry`). 201 `{ data: { retried: [{ stepIndex,
 * messageIds }] } }`; 404 for an unknown transaction or subscriber; 409 when nothing failed.
 */
export const retryRoute = () =>
  route({
    method: 'post',
    path: '/v1/notifications/:transactionId/retry',
    summary: "Send again a subscriber's steps of a trigger that failed for good",
    status: 201,
    envelope: 'data',
    body: retryBodySchema,
    handle({ tidings, params, body }) {
      const { subscriberId } = parseInput(retryBodySchema, body ?? {}, 'body');
      return tidings.retry(params['transactionId']!, subscriberId);
    },
  });
