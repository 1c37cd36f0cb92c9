import { brandInputSchema, catalogEntriesSchema, layoutInputSchema, partialInputSchema, type Layout } from '@tidings/core/schemas';
import { z } from 'zod';
import { currentActor } from '@tidings/core/internal';
import { orNotFound, route, type RouteDefinition } from './route.js';

/** A brand's members without its tenant, which the path names. */
const brandBodySchema = brandInputSchema.omit({ tenant: true });
/** A preview's members without its workflow, which the path names. */
const previewBodySchema = z.object({}).passthrough();

/** Layouts, partials, translations, brands and previews: Tidings' own routes (Novu's layouts API is its dashboard's). */
export function emailLookRoutes(): RouteDefinition[] {
  return [
    route({ method: 'post', path: '/v1/layouts', summary: 'Create or replace an email layout (HTML or MJML with a {{ content }} slot)', status: 201, envelope: 'data', body: layoutInputSchema, handle: ({ tidings, body }) => tidings.layouts.upsert(body as never, { by: currentActor() }) }),
    route({ method: 'get', path: '/v1/layouts', summary: 'Every email layout of the environment', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.layouts.list() }),
    route({ method: 'get', path: '/v1/layouts/:layoutId', summary: 'An email layout by identifier', status: 200, envelope: 'data', handle: ({ tidings, params }) => orNotFound(tidings.layouts.get(params['layoutId']!), 'Layout', params['layoutId']!) }),
    route({
      method: 'post',
      path: '/v1/layouts/:layoutId/default',
      summary: "Make a layout the environment's default",
      status: 200,
      envelope: 'data',
      async handle({ tidings, params }) {
        const layout = (await orNotFound(tidings.layouts.get(params['layoutId']!), 'Layout', params['layoutId']!)) as Layout;
        return tidings.layouts.upsert({ identifier: layout.identifier, name: layout.name, type: layout.type, content: layout.content, isDefault: true }, { by: currentActor() });
      },
    }),
    route({ method: 'delete', path: '/v1/layouts/:layoutId', summary: 'Remove an email layout', status: 204, envelope: 'data', handle: ({ tidings, params }) => tidings.layouts.delete(params['layoutId']!) }),
    route({ method: 'post', path: '/v1/partials', summary: "Create or replace a partial (a liquid block layouts and email steps include with {% render 'name' %})", status: 201, envelope: 'data', body: partialInputSchema, handle: ({ tidings, body }) => tidings.partials.upsert(body as never, { by: currentActor() }) }),
    route({ method: 'get', path: '/v1/partials', summary: 'Every partial of the environment', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.partials.list() }),
    route({ method: 'get', path: '/v1/partials/:partialId', summary: 'A partial by identifier', status: 200, envelope: 'data', handle: ({ tidings, params }) => orNotFound(tidings.partials.get(params['partialId']!), 'Partial', params['partialId']!) }),
    route({ method: 'delete', path: '/v1/partials/:partialId', summary: 'Remove a partial', status: 204, envelope: 'data', handle: ({ tidings, params }) => tidings.partials.delete(params['partialId']!) }),
    route({ method: 'get', path: '/v1/translations', summary: 'Every stored translation catalog of the environment', status: 200, envelope: 'data', handle: ({ tidings }) => tidings.translations.list() }),
    route({
      method: 'put',
      path: '/v1/translations/:locale',
      summary: "Store a locale's catalog (?tenant= for a tenant's): nested keys, ICU MessageFormat texts",
      status: 200,
      envelope: 'data',
      body: catalogEntriesSchema,
      handle: ({ tidings, params, query, body }) => tidings.translations.upsert({ locale: params['locale']!, entries: body as never, ...(query['tenant'] && { tenant: query['tenant'] }) }, { by: currentActor() }),
    }),
    route({
      method: 'get',
      path: '/v1/translations/:locale',
      summary: "A locale's stored catalog (?tenant= for a tenant's)",
      status: 200,
      envelope: 'data',
      handle: ({ tidings, params, query }) => orNotFound(tidings.translations.get(params['locale']!, query['tenant'] ? { tenant: query['tenant'] } : {}), 'Translations', params['locale']!),
    }),
    route({
      method: 'put',
      path: '/v1/translations/:locale/po',
      summary: "Store a gettext PO file as a locale's catalog (?tenant= for a tenant's): the file is the body; answers the catalog, how many texts and the entries left out",
      status: 200,
      envelope: 'data',
      textBody: 'text/x-gettext-translation',
      handle: ({ tidings, params, query, body }) => tidings.translations.importPo(params['locale']!, body as string, { ...(query['tenant'] && { tenant: query['tenant'] }), by: currentActor() }),
    }),
    route({ method: 'delete', path: '/v1/translations/:locale', summary: "Remove a locale's stored catalog (?tenant= for a tenant's)", status: 204, envelope: 'data', handle: ({ tidings, params, query }) => tidings.translations.delete(params['locale']!, query['tenant'] ? { tenant: query['tenant'] } : {}) }),
    route({ method: 'put', path: '/v1/brand', summary: "Set the environment's brand", status: 200, envelope: 'data', body: brandBodySchema, handle: ({ tidings, body }) => tidings.brands.upsert(body as never) }),
    route({ method: 'get', path: '/v1/brand', summary: "The environment's brand", status: 200, envelope: 'data', handle: ({ tidings }) => orNotFound(tidings.brands.get(), 'Brand', 'of the environment') }),
    route({ method: 'delete', path: '/v1/brand', summary: "Remove the environment's brand", status: 204, envelope: 'data', handle: ({ tidings }) => tidings.brands.delete() }),
    route({
      method: 'put',
      path: '/v1/tenants/:tenantId/brand',
      summary: "Set a tenant's brand (laid over the environment's)",
      status: 200,
      envelope: 'data',
      body: brandBodySchema,
      handle: ({ tidings, params, body }) => tidings.brands.upsert({ ...(body as object), tenant: params['tenantId']! } as never),
    }),
    route({ method: 'get', path: '/v1/tenants/:tenantId/brand', summary: "A tenant's own brand", status: 200, envelope: 'data', handle: ({ tidings, params }) => orNotFound(tidings.brands.get(params['tenantId']!), 'Brand', params['tenantId']!) }),
    route({ method: 'delete', path: '/v1/tenants/:tenantId/brand', summary: "Remove a tenant's brand", status: 204, envelope: 'data', handle: ({ tidings, params }) => tidings.brands.delete(params['tenantId']!) }),
    route({
      method: 'post',
      path: '/v1/workflows/:workflowId/preview',
      summary: 'Render a workflow for one subscriber and payload as it would be sent, storing nothing',
      status: 200,
      envelope: 'data',
      body: previewBodySchema,
      // The engine validates the whole preview (one schema), the workflow taken from the path.
      handle: ({ tidings, params, body }) => tidings.preview({ ...(body as object), workflowId: params['workflowId']! } as never),
    }),
  ];
}
