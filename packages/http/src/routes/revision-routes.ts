import type { Tidings } from '@tidings/core';
import { currentActor, parseInput } from '@tidings/core/internal';
import { workflowFilesInputSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { orNotFound, route, type RouteDefinition } from './route.js';

const wholeNumber = z.string().regex(/^\d{1,10}$/, 'must be a whole number');
const tenantQuery = { tenant: z.string().optional() };
const rollbackBody = z.strictObject({ revision: z.number().int().positive() });
/** Workflow files as the library takes them; the author is the route's. */
const filesBody = workflowFilesInputSchema.omit({ by: true });

/** A path's revision number as the engine checks it (a non-number is refused there, naming the field). */
const revisionParam = (value: string | undefined) => (/^\d{1,10}$/.test(value ?? '') ? Number(value) : NaN);

/** The history calls of one workflow, layout, partial or catalog, as a route's request names it. */
interface HistoryOf {
  history(query: { limit?: number }): Promise<unknown>;
  revision(revision: number): Promise<unknown>;
  diff(from: number, to: number): Promise<unknown>;
  rollback(revision: number, options: { by: string }): Promise<unknown>;
}

/**
 * The four history routes of one kind, the same for each: its revisions, one revision, a diff and a
 * rollback, under `path` (`/v1/layouts/:layoutId`). `tenant` kinds (catalogs) take `?tenant=`.
 */
function historyRoutes(spec: { path: string; noun: string; tenant?: boolean; of: (tidings: Tidings, ref: string, query: Record<string, string>) => HistoryOf }): RouteDefinition[] {
  const param = spec.path.slice(spec.path.lastIndexOf(':') + 1);
  const extra = spec.tenant ? tenantQuery : {};
  const on = ({ tidings, params, query }: { tidings: Tidings; params: Record<string, string>; query: Record<string, string> }) => spec.of(tidings, params[param]!, query);
  const which = spec.tenant ? ` (?tenant= for a tenant's)` : '';
  return [
    route({
      method: 'get',
      path: `${spec.path}/revisions`,
      summary: `A ${spec.noun}'s revisions, newest first: the whole ${spec.noun} as saved, who saved it and when (?limit=, default 50, at most 500)${which}`,
      status: 200,
      envelope: 'data',
      query: z.strictObject({ limit: wholeNumber.optional(), ...extra }),
      handle: (input) => on(input).history(input.query['limit'] === undefined ? {} : { limit: Number(input.query['limit']) }),
    }),
    route({
      method: 'get',
      path: `${spec.path}/revisions/:revision`,
      summary: `One revision of a ${spec.noun}${which}`,
      status: 200,
      envelope: 'data',
      query: z.strictObject(extra),
      handle: (input) => orNotFound(on(input).revision(revisionParam(input.params['revision'])) as Promise<object | null>, 'Revision', `${input.params[param]}@${input.params['revision']}`),
    }),
    route({
      method: 'get',
      path: `${spec.path}/diff`,
      summary: `What changed from revision ?from= to revision ?to=, member by member, also as lines${which}`,
      status: 200,
      envelope: 'data',
      query: z.strictObject({ from: wholeNumber, to: wholeNumber, ...extra }),
      handle: (input) => on(input).diff(Number(input.query['from']), Number(input.query['to'])),
    }),
    route({
      method: 'post',
      path: `${spec.path}/rollback`,
      summary: `Make the ${spec.noun} what it was at { revision }: a new revision equal to it (nothing when it is that already)${which}`,
      status: 200,
      envelope: 'data',
      query: z.strictObject(extra),
      body: rollbackBody,
      handle: (input) => on(input).rollback(parseInput(rollbackBody, input.body ?? {}, 'rollback').revision, { by: currentActor() }),
    }),
  ];
}

/** The history calls of a kind whose calls take a reference first (workflows, layouts, partials), bound to one. */
interface RefHistory {
  history(ref: string, query: { limit?: number }): Promise<unknown>;
  revision(ref: string, revision: number): Promise<unknown>;
  diff(ref: string, from: number, to: number): Promise<unknown>;
  rollback(ref: string, revision: number, options: { by: string }): Promise<unknown>;
}
const bound = (api: RefHistory, ref: string): HistoryOf => ({
  history: (q) => api.history(ref, q),
  revision: (n) => api.revision(ref, n),
  diff: (a, b) => api.diff(ref, a, b),
  rollback: (n, o) => api.rollback(ref, n, o),
});

/** The catalog options a request's `?tenant=` names. */
const tenantOf = (query: Record<string, string>) => (query['tenant'] === undefined ? {} : { tenant: query['tenant'] });

/**
 * Revisions of stored workflows, layouts, partials and translation catalogs, and folders of them
 * applied as files: Tidings' own routes over the engine's calls.
 */
export function revisionRoutes(): RouteDefinition[] {
  return [
    ...historyRoutes({
      path: '/v1/workflows/:workflowId',
      noun: 'workflow',
      of: (t, ref) => bound(t.workflows, ref),
    }),
    ...historyRoutes({
      path: '/v1/layouts/:layoutId',
      noun: 'layout',
      of: (t, ref) => bound(t.layouts, ref),
    }),
    ...historyRoutes({
      path: '/v1/partials/:partialId',
      noun: 'partial',
      of: (t, ref) => bound(t.partials, ref),
    }),
    ...historyRoutes({
      path: '/v1/translations/:locale',
      noun: 'catalog',
      tenant: true,
      of: (t, locale, query) => ({
        history: (q) => t.translations.history(locale, { ...q, ...tenantOf(query) }),
        revision: (n) => t.translations.revision(locale, n, tenantOf(query)),
        diff: (a, b) => t.translations.diff(locale, a, b, tenantOf(query)),
        rollback: (n, o) => t.translations.rollback(locale, n, { ...o, ...tenantOf(query) }),
      }),
    }),
    route({
      method: 'post',
      path: '/v1/workflow-files/plan',
      summary: 'What applying a folder of files (workflows, layouts, partials, catalogs) would add, change (with a diff) and, with prune, remove; changes nothing',
      status: 200,
      envelope: 'data',
      body: filesBody,
      handle: ({ tidings, body }) => tidings.workflows.plan(parseInput(filesBody, body ?? {}, 'workflow files')),
    }),
    route({
      method: 'post',
      path: '/v1/workflow-files/apply',
      summary: 'Apply a folder of files in one transaction (one bad file refuses them all, naming the file and the field); a no-op when nothing changed',
      status: 200,
      envelope: 'data',
      body: filesBody,
      handle: ({ tidings, body }) => tidings.workflows.apply({ ...parseInput(filesBody, body ?? {}, 'workflow files'), by: currentActor() }),
    }),
  ];
}
