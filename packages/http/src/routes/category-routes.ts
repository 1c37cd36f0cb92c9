import { categoryInputSchema } from '@tidings/core/schemas';
import { orNotFound, route, type RouteDefinition } from './route.js';

/** Categories of workflows and the preference audit trail: Tidings' own routes. */
export function categoryRoutes(): RouteDefinition[] {
  return [
    route({ method: 'get', path: '/v1/categories', summary: 'Every stored category of the environment', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.categories.list() }),
    route({
      method: 'put',
      path: '/v1/categories/:key',
      summary: "Create or change a category: its name and description on the preference page, its workflows' unsubscribe default",
      status: 200,
      envelope: 'data',
      body: categoryInputSchema,
      handle: ({ tidings, params, body }) => tidings.categories.upsert(params['key']!, body as never),
    }),
    route({ method: 'get', path: '/v1/categories/:key', summary: 'A stored category', status: 200, envelope: 'data', handle: ({ tidings, params }) => orNotFound(tidings.categories.get(params['key']!), 'Category', params['key']!) }),
    route({ method: 'delete', path: '/v1/categories/:key', summary: "Forget a category's name and settings (workflows keep naming it)", status: 204, envelope: 'data', handle: ({ tidings, params }) => tidings.categories.delete(params['key']!) }),
    route({
      method: 'get',
      path: '/v1/subscribers/:subscriberId/preferences/history',
      summary: "A subscriber's preference changes, newest first: what changed, how (api, inbox, page, one-click), when, through which link (?limit=, at most 500)",
      status: 200,
      envelope: 'data',
      handle: ({ tidings, params, query }) => tidings.preferences.history(params['subscriberId']!, query['limit'] ? { limit: Number(query['limit']) } : {}),
    }),
  ];
}
