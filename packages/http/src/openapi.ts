import { z } from 'zod';
import type { RouteDefinition } from './routes/route.js';

const schemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

/** The OpenAPI 3.1 document of the routes, generated from the same zod schemas that validate them. */
export function openApiDocument(routes: readonly RouteDefinition[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const query = r.query ? Object.keys((r.query as z.ZodObject).shape).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })) : [];
    (paths[path] ??= {})[r.method] = {
      summary: r.summary,
      security: [{ ApiKey: [] }],
      parameters: [...params, ...query, { name: 'idempotency-key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
      ...(r.body && { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(r.body) } } } }),
      ...(r.textBody && { requestBody: { required: true, content: { [r.textBody]: { schema: { type: 'string' } } } } }),
      responses: {
        [r.status]: { description: r.status === 204 ? 'Success, no content' : r.envelope === 'data' ? 'Success, wrapped as { "data": … }' : 'Success' },
        '4XX': { description: 'Error envelope { statusCode, message, error, timestamp, path }' },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tidings', version: '0.1.0', description: 'Novu-compatible notification API served by Tidings' },
    components: { securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'ApiKey <key>' } } },
    paths,
  };
}
