import { notFound } from '@tidings/core/internal';
import { channelSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { route, type RouteDefinition } from './route.js';

/** `DELETE /v1/messages/transaction/:transactionId` (`?channel=`): every message of a trigger, of one channel when given. */
const deleteByTransactionQuery = z.strictObject({ channel: channelSchema.optional() });

/** Novu's `messages.deleteByTransactionId` (`@novu/api` and `@novu/node`). */
export function messageDeletionRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'delete',
      path: '/v1/messages/transaction/:transactionId',
      summary: "Delete every message of a trigger (of one channel with ?channel=), whoever received it; 404 when it has none",
      status: 204,
      envelope: 'data',
      query: deleteByTransactionQuery,
      async handle({ tidings, params, query }) {
        const { channel } = query as z.output<typeof deleteByTransactionQuery>;
        const transactionId = params['transactionId']!;
        if ((await tidings.messages.deleteByTransaction(transactionId, channel)) === 0) throw notFound('Messages of transaction', transactionId);
      },
    }),
  ];
}
