import { markFlagsInputSchema } from '@tidings/core/schemas';
import { markRoute } from './mark-route.js';
import type { RouteDefinition } from './route.js';

/** Routes only Novu's older server SDK (`@novu/node` 2.x) still calls. */
export function legacyRoutes(): RouteDefinition[] {
  return [
    markRoute({
      path: '/v1/subscribers/:subscriberId/messages/markAs',
      summary: 'Set the seen and read flags of messages ({ messageId, mark: { seen?, read? } }, @novu/node)',
      body: markFlagsInputSchema,
      mark: (tidings, subscriberId, body) => tidings.messages.markFlags(subscriberId, body),
    }),
  ];
}
