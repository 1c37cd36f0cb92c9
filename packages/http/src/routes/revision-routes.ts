import { parseInput } from '@tidings/core/internal';
import { workflowFilesInputSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { orNotFound, route, type RouteDefinition } from './route.js';

/** What the routes record as the author of a change: API keys have no names yet. */
const BY = 'api';

const wholeNumber = z.string().regex(/^\d{1,10}$/, 'must be a whole number');
const historyQuery = z.strictObject({ limit: wholeNumber.optional() });
const diffQuery = z.strictObject({ from: wholeNumber, to: wholeNumber });
const rollbackBody = z.strictObject({ revision: z.number().int().positive() });
/** Workflow files as the library takes them; the author is the route's. */
const filesBody = workflowFilesInputSchema.omit({ by: true });

/** A path's revision number as the engine checks it (a non-number is refused there, naming the field). */
const revisionParam = (value: string | undefined) => (/^\d{1,10}$/.test(value ?? '') ? Number(value) : NaN);

/** Revisions of stored workflows, and workflows applied as files: Tidings' own routes over `tidings.workflows`. */
export function revisionRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'get',
      path: '/v1/workflows/:workflowId/revisions',
      summary: "A workflow's revisions, newest first: the whole workflow as saved, who saved it and when (?limit=, default 50, at most 500)",
      status: 200,
      envelope: 'data',
      query: historyQuery,
      handle: ({ tidings, params, query }) => tidings.workflows.history(params['workflowId']!, query['limit'] === undefined ? {} : { limit: Number(query['limit']) }),
    }),
    route({
      method: 'get',
      path: '/v1/workflows/:workflowId/revisions/:revision',
      summary: 'One revision of a workflow',
      status: 200,
      envelope: 'data',
      handle: ({ tidings, params }) => orNotFound(tidings.workflows.revision(params['workflowId']!, revisionParam(params['revision'])), 'Revision', `${params['workflowId']}@${params['revision']}`),
    }),
    route({
      method: 'get',
      path: '/v1/workflows/:workflowId/diff',
      summary: 'What changed from revision ?from= to revision ?to=, member by member and step by step, also as lines',
      status: 200,
      envelope: 'data',
      query: diffQuery,
      handle: ({ tidings, params, query }) => tidings.workflows.diff(params['workflowId']!, Number(query['from']), Number(query['to'])),
    }),
    route({
      method: 'post',
      path: '/v1/workflows/:workflowId/rollback',
      summary: 'Make the workflow what it was at { revision }: a new revision equal to it (nothing when it is that already)',
      status: 200,
      envelope: 'data',
      body: rollbackBody,
      handle: ({ tidings, params, body }) => tidings.workflows.rollback(params['workflowId']!, parseInput(rollbackBody, body ?? {}, 'rollback').revision, { by: BY }),
    }),
    route({
      method: 'post',
      path: '/v1/workflow-files/plan',
      summary: 'What applying these workflow files would add, change (with a diff) and, with prune, remove; changes nothing',
      status: 200,
      envelope: 'data',
      body: filesBody,
      handle: ({ tidings, body }) => tidings.workflows.plan(parseInput(filesBody, body ?? {}, 'workflow files')),
    }),
    route({
      method: 'post',
      path: '/v1/workflow-files/apply',
      summary: 'Apply workflow files in one transaction (one bad file refuses them all, naming the file and the field); a no-op when nothing changed',
      status: 200,
      envelope: 'data',
      body: filesBody,
      handle: ({ tidings, body }) => tidings.workflows.apply({ ...parseInput(filesBody, body ?? {}, 'workflow files'), by: BY }),
    }),
  ];
}
