import { TidingsError } from '../../errors.js';
import { forgetCancellingWorkflows } from '../waits/cancel-on.js';
import { newId } from '../../ids.js';
import type { StorageRepositories } from '../../storage.js';
import { workflowInputSchema, WORKFLOW_MEMBER_HINTS, type Workflow, type WorkflowInput } from '../../schemas/index.js';
import { categoryFromTags } from '../../preferences/categories.js';
import { slugify } from '../../util/slugify.js';
import { componentIssues } from '../../email/email-components.js';
import { issuesText } from '../../listed-issues.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { saveRevision } from '../revisions/revision-records.js';
import { WORKFLOW_HISTORY } from '../revisions/revision-kinds.js';

/** A workflow input, checked. */
export type ParsedWorkflow = ReturnType<typeof workflowInputSchema.parse>;

/** Checks a workflow input (schema, then the email components it names); throws `validation_failed` naming each field. */
export function parseWorkflow(ctx: EngineContext, input: WorkflowInput | unknown): ParsedWorkflow {
  const parsed = parseInput(workflowInputSchema, input, 'workflow', WORKFLOW_MEMBER_HINTS);
  const unknown = componentIssues(parsed.steps, ctx.options.emailComponents);
  if (unknown.length > 0) throw new TidingsError('validation_failed', `Invalid workflow: ${issuesText(unknown)}`, { issues: unknown });
  return parsed;
}

/**
 * The stored workflow an input replaces: the one of its `_id`, else of its trigger identifier; null
 * when it adds one. `find` resolves a reference as `workflows.find` does.
 */
export async function matchOf(find: (ref: string) => Promise<Workflow | null> | Workflow | null, parsed: ParsedWorkflow): Promise<Workflow | null> {
  const identifier = parsed.triggers[0]!.identifier;
  const existing = await find(parsed._id || identifier);
  return existing && (existing._id === parsed._id || existing.identifier === identifier) ? existing : null;
}

/**
 * The workflow an input makes over `match` (without a revision): server-made members from the match
 * or new. A step without an id takes the id of the stored step in its place when that has its type,
 * so saving the same definition again (ids left out, as at an app's boot) changes nothing.
 */
export function buildWorkflow(ctx: EngineContext, parsed: ParsedWorkflow, match: Workflow | null): Workflow {
  const { revision: _ignored, ...given } = parsed;
  const identifier = parsed.triggers[0]!.identifier;
  const now = ctx.now();
  const _id = match?._id ?? parsed._id ?? newId(ctx.clock.now());
  const steps = parsed.steps.map((step, index) => {
    const before = match?.steps[index];
    const kept = before && before.template.type === step.template.type ? before : undefined;
    const stepId = step._id ?? kept?._id ?? newId(ctx.clock.now());
    return {
      ...step,
      _id: stepId,
      _templateId: step._templateId ?? (step._id === undefined ? kept?._templateId : undefined) ?? stepId,
      variants: step.variants.map((v, vi) => {
        const keptVariant = kept?.variants[vi];
        const variantId = v._id ?? keptVariant?._id ?? newId(ctx.clock.now());
        return { ...v, _id: variantId, _templateId: v._templateId ?? (v._id === undefined ? keptVariant?._templateId : undefined) ?? variantId };
      }),
    };
  });
  const category = parsed.category ?? categoryFromTags(parsed.tags);
  return {
    ...given,
    ...(category !== undefined && { category }),
    _id,
    identifier,
    slug: parsed.slug ?? match?.slug ?? `${slugify(parsed.name)}_wf_${_id}`,
    steps,
    _organizationId: ctx.organizationId,
    _environmentId: ctx.env,
    _creatorId: match?._creatorId ?? 'tidings',
    _notificationGroupId: parsed._notificationGroupId ?? match?._notificationGroupId ?? 'general',
    deleted: false,
    deletedAt: null,
    deletedBy: null,
    createdAt: match?.createdAt ?? now,
    updatedAt: now,
  };
}

/**
 * Stores a built workflow over the one it replaces (`match`) as a new revision, recorded beside it in
 * `tx`; one that defines what is stored already writes nothing and returns the stored workflow.
 */
export async function saveWorkflow(ctx: EngineContext, tx: StorageRepositories, built: Workflow, match: Workflow | null, by: string, restores?: number): Promise<{ workflow: Workflow; changed: boolean }> {
  // A code workflow's view is never written: its store refuses it, even unchanged.
  const stored = match && match._creatorId !== 'code' ? match : null;
  const { value, changed } = await saveRevision(tx.records, ctx.env, WORKFLOW_HISTORY, { stored, value: built, by, restores }, (workflow) => tx.workflows.upsert(ctx.env, workflow));
  if (changed) forgetCancellingWorkflows(ctx);
  return { workflow: value, changed };
}

/** The one place a workflow input is written: built over the workflow it replaces and saved (see `saveWorkflow`). */
export async function writeWorkflow(ctx: EngineContext, tx: StorageRepositories, parsed: ParsedWorkflow, by: string, restores?: number): Promise<{ workflow: Workflow; changed: boolean }> {
  const match = await matchOf((ref) => tx.workflows.find(ctx.env, ref), parsed);
  return saveWorkflow(ctx, tx, buildWorkflow(ctx, parsed, match), match, by, restores);
}
