import { TidingsError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { StorageRepositories } from '../../storage.js';
import {
  integrationInputSchema,
  integrationPatchSchema,
  tenantInputSchema,
  workflowInputSchema,
  WORKFLOW_MEMBER_HINTS,
  type Integration,
  type IntegrationInput,
  type IntegrationPatch,
  type Tenant,
  type TenantInput,
  type Workflow,
  type WorkflowInput,
} from '../../schemas/index.js';
import { categoryFromTags } from '../../preferences/categories.js';
import { slugify } from '../../util/slugify.js';
import { componentIssues } from '../../email/email-components.js';
import { issuesText } from '../../listed-issues.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

export function workflowsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    /**
     * Creates or replaces a workflow. It is matched by `_id`, else by its trigger identifier, so
     * saving the same definition twice updates it. Steps get ids when they have none.
     */
    async upsert(input: WorkflowInput): Promise<Workflow> {
      const parsed = parseInput(workflowInputSchema, input, 'workflow', WORKFLOW_MEMBER_HINTS);
      const unknown = componentIssues(parsed.steps, ctx.options.emailComponents);
      if (unknown.length > 0) throw new TidingsError('validation_failed', `Invalid workflow: ${issuesText(unknown)}`, { issues: unknown });
      const identifier = parsed.triggers[0]!.identifier;
      const now = ctx.now();
      return storage.transaction(async (tx) => {
        const existing = parsed._id ? await tx.workflows.find(env, parsed._id) : await tx.workflows.find(env, identifier);
        const match = existing && (existing._id === parsed._id || existing.identifier === identifier) ? existing : null;
        const _id = match?._id ?? parsed._id ?? newId(ctx.clock.now());
        const steps = parsed.steps.map((step) => {
          const stepId = step._id ?? newId(ctx.clock.now());
          return {
            ...step,
            _id: stepId,
            _templateId: step._templateId ?? stepId,
            variants: step.variants.map((v) => {
              const variantId = v._id ?? newId(ctx.clock.now());
              return { ...v, _id: variantId, _templateId: v._templateId ?? variantId };
            }),
          };
        });
        const category = parsed.category ?? categoryFromTags(parsed.tags);
        const workflow: Workflow = {
          ...parsed,
          ...(category !== undefined && { category }),
          _id,
          identifier,
          slug: parsed.slug ?? match?.slug ?? `${slugify(parsed.name)}_wf_${_id}`,
          steps,
          _organizationId: ctx.organizationId,
          _environmentId: env,
          _creatorId: match?._creatorId ?? 'tidings',
          _notificationGroupId: parsed._notificationGroupId ?? match?._notificationGroupId ?? 'general',
          deleted: false,
          deletedAt: null,
          deletedBy: null,
          createdAt: match?.createdAt ?? now,
          updatedAt: now,
        };
        return tx.workflows.upsert(env, workflow);
      });
    },
    /** The workflow with this internal id, trigger identifier or slug, or null. */
    get: (ref: string) => storage.workflows.find(env, ref),
    list: () => storage.workflows.list(env),
    /** Deletes by internal id, identifier or slug; not_found when there is none. */
    async delete(ref: string): Promise<void> {
      const workflow = await storage.workflows.find(env, ref);
      if (!workflow || !(await storage.workflows.delete(env, workflow._id))) throw notFound('Workflow', ref);
    },
  };
}

export function tenantsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    async upsert(input: TenantInput): Promise<Tenant> {
      const parsed = parseInput(tenantInputSchema, input, 'tenant');
      const now = ctx.now();
      return storage.transaction(async (tx) => {
        const existing = await tx.tenants.get(env, parsed.identifier);
        return tx.tenants.upsert(env, {
          _id: existing?._id ?? newId(ctx.clock.now()),
          identifier: parsed.identifier,
          name: parsed.name ?? existing?.name ?? parsed.identifier,
          data: parsed.data ?? existing?.data ?? {},
          _environmentId: env,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        });
      });
    },
    get: (identifier: string) => storage.tenants.get(env, identifier),
  };
}

/** Stores an integration; a primary one takes the flag from the others of its channel (one primary per channel). */
async function storeIntegration(ctx: EngineContext, tx: StorageRepositories, integration: Integration): Promise<Integration> {
  if (integration.primary) {
    for (const other of await tx.integrations.list(ctx.env, { channel: integration.channel })) {
      if (other._id !== integration._id && other.primary) await tx.integrations.upsert(ctx.env, { ...other, primary: false, updatedAt: integration.updatedAt });
    }
  }
  return tx.integrations.upsert(ctx.env, integration);
}

export function integrationsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    /** Creates or replaces an integration (matched by `_id`, else `identifier`). */
    async upsert(input: IntegrationInput): Promise<Integration> {
      const parsed = parseInput(integrationInputSchema, input, 'integration');
      const now = ctx.now();
      return storage.transaction(async (tx) => {
        const all = await tx.integrations.list(env);
        const match = all.find((i) => i._id === parsed._id) ?? all.find((i) => parsed.identifier !== undefined && i.identifier === parsed.identifier);
        const _id = match?._id ?? parsed._id ?? newId(ctx.clock.now());
        return storeIntegration(ctx, tx, {
          ...parsed,
          name: parsed.name ?? match?.name ?? parsed.providerId,
          _id,
          identifier: parsed.identifier ?? match?.identifier ?? `${parsed.providerId}-${_id.slice(-8)}`,
          _environmentId: env,
          _organizationId: ctx.organizationId,
          deleted: false,
          createdAt: match?.createdAt ?? now,
          updatedAt: now,
        });
      });
    },
    /**
     * Changes a stored integration by `_id`: the members given replace the stored ones. An integration
     * turned inactive stops being primary.
     */
    async update(id: string, patch: IntegrationPatch): Promise<Integration> {
      const parsed = parseInput(integrationPatchSchema, patch, 'integration change');
      return storage.transaction(async (tx) => {
        const stored = await tx.integrations.get(env, id);
        if (!stored) throw notFound('Integration', id);
        if (parsed.identifier !== undefined && parsed.identifier !== stored.identifier && (await tx.integrations.list(env)).some((i) => i.identifier === parsed.identifier)) {
          const message = `Integration identifier "${parsed.identifier}" is already used`;
          throw new TidingsError('conflict', message);
        }
        const { rateLimit, ...changes } = parsed;
        const { rateLimit: storedRate, ...kept } = stored;
        const rate = rateLimit === undefined ? storedRate : (rateLimit ?? undefined);
        const next = { ...kept, ...changes, ...(rate && { rateLimit: rate }), updatedAt: ctx.now() };
        return storeIntegration(ctx, tx, next.active ? next : { ...next, primary: false });
      });
    },
    list: () => storage.integrations.list(env),
    listActive: () => storage.integrations.list(env, { active: true }),
    /** Makes this integration its channel's primary; the others of the channel stop being primary. */
    async setPrimary(id: string): Promise<Integration> {
      return storage.transaction(async (tx) => {
        const integration = await tx.integrations.get(env, id);
        if (!integration) throw notFound('Integration', id);
        if (!integration.active) throw new TidingsError('validation_failed', 'An inactive integration cannot be primary', { issues: [{ path: 'active', message: 'must be true to be primary' }] });
        return storeIntegration(ctx, tx, { ...integration, primary: true, updatedAt: ctx.now() });
      });
    },
  };
}
