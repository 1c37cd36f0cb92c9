import { isTidingsError, TidingsError, type Tidings, type Workflow, type WorkflowInput } from '@tidings/core';
import { currentActor, notFound } from '@tidings/core/internal';
import { Hono, type Context } from 'hono';
import { parseBody } from '../body.js';
import type { AppEnv } from '../context.js';
import { HttpError } from '../errors.js';
import { checkedParams } from '../params.js';
import { stepPreview } from './step-preview.js';
import { listWorkflows, novuPathOf, slugify, stepIdsOf, stepToNovu, workflowInputFromNovu, workflowToNovu } from './workflow-mapping.js';
import {
  createWorkflowSchema,
  invalid,
  LIST_QUERY_ARRAYS,
  listQuerySchema,
  parseOr422,
  patchWorkflowSchema,
  updateWorkflowSchema,
} from './workflow-schemas.js';

/**
 * Novu's `/v2/workflows` (what `@novu/api`'s `novu.workflows.*` calls): create, get, update (PUT),
 * patch, delete, list, and one step. Workflows are stored through `tidings.workflows`; the DTOs are
 * translated in workflow-mapping.ts. Mounted after the API-key check (`app.route('/', …)`): delete
 * answers 204 without a body and the list reads repeated query parameters, which the route table's
 * handlers cannot do.
 */
export function workflowsV2Routes() {
  const router = new Hono<AppEnv>();

  const bodyOf = (c: Context<AppEnv>) => parseBody(c.get('bodyText'), c.req.header('content-type')) ?? {};
  const workflowIdOf = (c: Context<AppEnv>) => checkedParams({ workflowId: c.req.param('workflowId') ?? '' })['workflowId']!;

  async function requireWorkflow(tidings: Tidings, ref: string): Promise<Workflow> {
    const workflow = await tidings.workflows.get(ref);
    if (!workflow) throw notFound('Workflow', ref);
    return workflow;
  }

  /** Stores the mapped workflow; an issue the engine finds is answered with the Novu member it came from. */
  async function store(tidings: Tidings, input: WorkflowInput): Promise<Workflow> {
    try {
      return await tidings.workflows.upsert(input, { by: currentActor() });
    } catch (error) {
      if (!isTidingsError(error, 'validation_failed')) throw error;
      throw invalid('workflow', error.issues.map((i) => ({ path: novuPathOf(i.path, input), message: i.message })));
    }
  }

  /** `base`, else `base-2`, `base-3`, …: the first identifier no workflow has (a create without workflowId, as Novu makes one). */
  async function freeIdentifier(tidings: Tidings, base: string): Promise<string> {
    for (let n = 1; n <= 100; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await tidings.workflows.get(candidate))) return candidate;
    }
    throw new HttpError(400, `No free workflowId derived from "${base}"; give one with workflowId`);
  }

  router.post('/v2/workflows', async (c) => {
    const tidings = c.get('tidings');
    const parsed = parseOr422(createWorkflowSchema, bodyOf(c), 'workflow');
    const body = parsed.workflowId === undefined ? { ...parsed, workflowId: await freeIdentifier(tidings, slugify(parsed.name, 'workflow')) } : parsed;
    const input = workflowInputFromNovu(body, null);
    const identifier = input.triggers[0]!.identifier;
    // A create never replaces: Novu answers 400 for a workflowId in use (a 409 would make the SDK retry).
    if (await tidings.workflows.get(identifier)) {
      throw new HttpError(400, `Workflow with workflowId "${identifier}" already exists`, { errors: { workflowId: { messages: ['is already used by another workflow'], value: identifier } } });
    }
    return c.json({ data: workflowToNovu(await store(tidings, input)) }, 201);
  });

  router.get('/v2/workflows', async (c) => {
    const raw: Record<string, unknown> = { ...c.req.query() };
    for (const key of LIST_QUERY_ARRAYS) {
      const values = [...(c.req.queries(key) ?? []), ...(c.req.queries(`${key}[]`) ?? [])];
      delete raw[`${key}[]`];
      if (values.length > 0) raw[key] = values;
    }
    const query = parseOr422(listQuerySchema, raw, 'query');
    return c.json({ data: listWorkflows(await c.get('tidings').workflows.list(), query) });
  });

  router.get('/v2/workflows/:workflowId', async (c) => {
    return c.json({ data: workflowToNovu(await requireWorkflow(c.get('tidings'), workflowIdOf(c))) });
  });

  router.put('/v2/workflows/:workflowId', async (c) => {
    const tidings = c.get('tidings');
    const existing = await requireWorkflow(tidings, workflowIdOf(c));
    const body = parseOr422(updateWorkflowSchema, bodyOf(c), 'workflow');
    return c.json({ data: workflowToNovu(await store(tidings, workflowInputFromNovu(body, existing))) });
  });

  router.patch('/v2/workflows/:workflowId', async (c) => {
    const tidings = c.get('tidings');
    const existing = await requireWorkflow(tidings, workflowIdOf(c));
    const patch = parseOr422(patchWorkflowSchema, bodyOf(c), 'workflow change');
    const { createdAt: _c, updatedAt: _u, ...kept } = existing;
    const input: WorkflowInput = {
      ...kept,
      ...(patch.active !== undefined && { active: patch.active }),
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.tags !== undefined && { tags: patch.tags }),
    };
    return c.json({ data: workflowToNovu(await store(tidings, input)) });
  });

  router.delete('/v2/workflows/:workflowId', async (c) => {
    await c.get('tidings').workflows.delete(workflowIdOf(c));
    return c.body(null, 204);
  });

  /** The workflow of the path and the index of its step `:stepId` (its _id, template id or Novu stepId); 404 for either missing. */
  async function stepOf(c: Context<AppEnv>) {
    const { stepId } = checkedParams({ stepId: c.req.param('stepId') ?? '' });
    const workflow = await requireWorkflow(c.get('tidings'), workflowIdOf(c));
    const stepIds = stepIdsOf(workflow.steps);
    const index = workflow.steps.findIndex((s, i) => s._id === stepId || s._templateId === stepId || stepIds[i] === stepId);
    if (index < 0) throw new TidingsError('not_found', `Step "${stepId}" was not found in workflow "${workflow.identifier}"`);
    return { workflow, index, stepIds };
  }

  router.get('/v2/workflows/:workflowId/steps/:stepId', async (c) => {
    const { workflow, index, stepIds } = await stepOf(c);
    return c.json({ data: stepToNovu(workflow, index, stepIds) });
  });

  router.post('/v2/workflows/:workflowId/step/:stepId/preview', async (c) => {
    const { workflow, index } = await stepOf(c);
    return c.json({ data: await stepPreview(c.get('tidings'), workflow, index, bodyOf(c)) }, 201);
  });

  return router;
}
