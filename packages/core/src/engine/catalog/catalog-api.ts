import { TidingsError, notFound } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { changedFields } from '../audit/changed-fields.js';
import { newId } from '../../ids.js';
import type { StorageRepositories } from '../../storage.js';
import {
  integrationInputSchema,
  integrationPatchSchema,
  tenantInputSchema,
  workflowWriteOptionsSchema,
  type WorkflowWriteOptions,
  type Integration,
  type IntegrationInput,
  type IntegrationPatch,
  type Tenant,
  type TenantInput,
  type Workflow,
  type WorkflowInput,
} from '../../schemas/index.js';
import { revisionsApi } from '../revisions/revisions-api.js';
import { parseWorkflow, writeWorkflow } from './workflow-writes.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

export function workflowsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    /**
     * Creates or replaces a workflow. It is matched by `_id`, else by its trigger identifier, so
     * saving the same definition twice updates it. Steps get ids when they have none (the id of the
     * stored step in their place, when it has their type). Each change stores a revision (see
     * `history`), recorded as made `by` (default `code`); saving what is stored already changes nothing.
     */
    async upsert(input: WorkflowInput, options: WorkflowWriteOptions = {}): Promise<Workflow> {
      const { by } = parseInput(workflowWriteOptionsSchema, options, 'workflow write options');
      const parsed = parseWorkflow(ctx, input);
      return storage.transaction(async (tx) => (await writeWorkflow(ctx, tx, parsed, by ?? 'code')).workflow);
    },
    /** The workflow with this internal id, trigger identifier or slug, or null. */
    get: (ref: string) => storage.workflows.find(env, ref),
    list: () => storage.workflows.list(env),
    /** Deletes by internal id, identifier or slug; not_found when there is none. Its revisions stay readable (`history`). */
    async delete(ref: string): Promise<void> {
      await storage.transaction(async (tx) => {
        const workflow = await tx.workflows.find(env, ref);
        if (!workflow || !(await tx.workflows.delete(env, workflow._id))) throw notFound('Workflow', ref);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'workflow', action: 'deleted', target: workflow.identifier }]);
      });
    },
    ...revisionsApi(ctx),
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
  const before = await tx.integrations.get(ctx.env, integration._id);
  const stored = await tx.integrations.upsert(ctx.env, integration);
  // Only the names of what changed: credentials are named member by member, never their values.
  const fields = changedFields(before, stored);
  if (fields.length > 0) await recordAudit(tx.records, ctx.env, ctx.clock.now(), [{ kind: 'integration', action: before ? 'updated' : 'created', target: stored.identifier, fields }]);
  return stored;
}

/** A patch member that `null` removes: the one given, else the stored one. */
const replaced = <T>(given: T | null | undefined, stored: T | undefined): T | undefined => (given === undefined ? stored : (given ?? undefined));

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
        const { rateLimit, maxInFlight, ...changes } = parsed;
        const { rateLimit: storedRate, maxInFlight: storedBound, ...kept } = stored;
        const rate = replaced(rateLimit, storedRate);
        const bound = replaced(maxInFlight, storedBound);
        const next = { ...kept, ...changes, ...(rate && { rateLimit: rate }), ...(bound !== undefined && { maxInFlight: bound }), updatedAt: ctx.now() };
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
