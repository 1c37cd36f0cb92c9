import { markFlagsInputSchema } from '@tidings/core';
import { messageToWire } from '../wire.js';
import { requireMessageIds } from './interface-routes.js';
import { route, type RouteDefinition } from './route.js';

/** Routes only Novu's older server SDK (`@novu/node` 2.x) still calls. */
export function legacyRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/messages/markAs',
      summary: 'Set the seen and read flags of messages ({ messageId, mark: { seen?, read? } }, @novu/node)',
      status: 201,
      envelope: 'data',
      body: markFlagsInputSchema,
      async handle({ tidings, params, body }) {
        requireMessageIds(body);
        return (await tidings.messages.markFlags(params['subscriberId']!, body as never)).map(messageToWire);
      },
    }),
  ];
}
