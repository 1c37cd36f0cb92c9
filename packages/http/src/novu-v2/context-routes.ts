import type { StoredContext } from '@tidings/core/schemas';
import { contextIdSchema, contextTypeSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { parseInput } from '@tidings/core/internal';
import { orNotFound, route, type RouteDefinition, type RouteInput } from '../routes/route.js';
import { booleanQuery, limitSchema } from './people-schemas.js';
import { countMatches, cursor, scanPage, type IdPager } from './scan-page.js';

type RouteTidings = RouteInput['tidings'];

/** A member accepted only when left out (or null): Tidings runs no agents, so has no bridge to route to. */
const noBridge = z.unknown().refine((value) => value === undefined || value === null, 'is not supported: Tidings runs no agents (a bridge URL routes their turns)').optional();
const dataSchema = z.record(z.string(), z.unknown(), { error: 'must be an object' });

/** `POST /v2/contexts` (CreateContextRequestDto). */
const createContextSchema = z.strictObject({ type: contextTypeSchema, id: contextIdSchema, data: dataSchema.optional(), bridgeUrl: noBridge });
/** `PATCH /v2/contexts/:type/:id` (UpdateContextRequestDto): the data replaces the stored data. */
const updateContextSchema = z.strictObject({ data: dataSchema, bridgeUrl: noBridge });

const forwardOnly = 'pages go forward only, in type:id order (follow next)';
/** `GET /v2/contexts` (its query): `id` one id of any type, `search` a part of the type or id. */
const listContextsQuery = z.strictObject({
  after: z.string().min(1, 'must not be empty').optional(),
  before: z.unknown().refine((value) => value === undefined, `is not supported: ${forwardOnly}`).optional(),
  limit: limitSchema.default(10),
  orderDirection: z.enum(['ASC', 'DESC']).refine((d) => d === 'ASC', `is not supported: ${forwardOnly}, so only ASC`).optional(),
  orderBy: z.string().refine((by) => by === 'createdAt' || by === 'id', `is not supported: ${forwardOnly}; leave orderBy out`).optional(),
  includeCursor: booleanQuery.optional(),
  id: z.string().optional(),
  search: z.string().optional(),
});
type ListContextsQuery = z.output<typeof listContextsQuery>;

/** GetContextResponseDto. */
const contextToWire = (c: StoredContext) => ({ type: c.type, id: c.id, data: c.data, createdAt: c.createdAt, updatedAt: c.updatedAt });
const keyOf = (c: StoredContext) => `${c.type}:${c.id}`;

/** The environment's contexts in key order (`type:id`), those read kept for `load`. */
function contextSource(tidings: RouteTidings, id: string | undefined) {
  const read = new Map<string, StoredContext>();
  const ids: IdPager = async (after, limit) => {
    const page = await tidings.contexts.list({ limit: Math.min(limit, 100), ...(after !== null && { after }), ...(id !== undefined && id !== '' && { id }) });
    for (const c of page.data) read.set(keyOf(c), c);
    return page.data.map(keyOf);
  };
  const load = async (keys: string[]) => keys.map((key) => read.get(key)).filter((c): c is StoredContext => c !== undefined);
  return { ids, load };
}

/** `@novu/api` 3.x's `contexts` namespace (`/v2/contexts`), on `tidings.contexts`. */
export function contextRoutes(): RouteDefinition[] {
  const path = '/v2/contexts/:type/:id';
  const named = (params: Record<string, string>) => [params['type']!, params['id']!] as const;
  return [
    route({
      method: 'post',
      path: '/v2/contexts',
      summary: 'Create a context (a tenant, app or workspace triggers happen in) with its data; 409 when its type and id are taken',
      status: 201,
      envelope: 'data',
      body: createContextSchema,
      async handle({ tidings, body }) {
        const input = parseInput(createContextSchema, body ?? {}, 'context');
        return contextToWire(await tidings.contexts.create({ type: input.type, id: input.id, data: input.data ?? {} }));
      },
    }),
    route({
      method: 'get',
      path: '/v2/contexts',
      summary: 'List contexts in type:id order (`id`: of that id, `search`: a part of the type or id)',
      status: 200,
      envelope: 'raw',
      query: listContextsQuery,
      async handle({ tidings, query }) {
        const q = query as unknown as ListContextsQuery;
        const needle = q.search?.toLowerCase();
        const matches = (c: StoredContext) => needle === undefined || keyOf(c).includes(needle);
        const after = q.after === undefined ? null : cursor.decode(q.after, 'after');
        const [page, count] = await Promise.all([
          scanPage({ ...contextSource(tidings, q.id), idOf: keyOf, matches, after, includeCursor: q.includeCursor ?? false, limit: q.limit }),
          countMatches({ ...contextSource(tidings, q.id), ...(needle !== undefined && { matches }) }),
        ]);
        return { data: page.items.map(contextToWire), next: page.next, previous: null, ...count };
      },
    }),
    route({ method: 'get', path, summary: 'Retrieve a context by type and id', status: 200, envelope: 'data', handle: async ({ tidings, params }) => contextToWire(await orNotFound(tidings.contexts.get(...named(params)), 'Context', `${params['type']}:${params['id']}`)) }),
    route({
      method: 'patch',
      path,
      summary: "Replace a context's data",
      status: 200,
      envelope: 'data',
      body: updateContextSchema,
      async handle({ tidings, params, body }) {
        const { data } = parseInput(updateContextSchema, body ?? {}, 'context');
        return contextToWire(await tidings.contexts.update(...named(params), { data }));
      },
    }),
    route({ method: 'delete', path, summary: 'Delete a context (messages triggered with it keep their context)', status: 204, envelope: 'data', handle: ({ tidings, params }) => tidings.contexts.delete(...named(params)) }),
  ];
}
