import { TidingsError, notFound } from '../errors.js';
import { applyPreferencesPatch } from '../preferences/merge-patch.js';
import { resolveGlobalPreference, resolvePreferences } from '../preferences/resolve-preferences.js';
import { preferencesPatchSchema, type Preferences, type PreferencesPatch } from '../schemas/index.js';
import type { StorageRepositories } from '../storage.js';
import { parseInput } from '../validation.js';
import type { EngineContext } from './context.js';

export function preferencesApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function read(repos: StorageRepositories, subscriberId: string): Promise<Preferences> {
    const [subscriber] = await repos.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    const rows = await repos.preferences.list(env, subscriberId);
    const workflows = (await repos.workflows.list(env)).filter((w) => w.active && !w.draft && !w.critical);
    return { global: resolveGlobalPreference(rows, workflows), workflows: workflows.map((w) => resolvePreferences(w, rows)) };
  }

  return {
    /**
     * The subscriber's global preference (over the channels those workflows use) and its effective
     * preference for every active, non-critical workflow.
     */
    get: (subscriberId: string) => read(storage, subscriberId),
    /**
     * Merges a patch into the global preference, or into one workflow's when `workflowId` (internal
     * id, identifier or slug) is given; returns the preferences after it. Omitted members keep their
     * values. Critical workflows cannot be changed.
     */
    async update(subscriberId: string, patch: PreferencesPatch): Promise<Preferences> {
      const parsed = parseInput(preferencesPatchSchema, patch, 'preferences');
      return storage.transaction(async (tx) => {
        const [subscriber] = await tx.subscribers.getMany(env, [subscriberId]);
        if (!subscriber) throw notFound('Subscriber', subscriberId);
        let workflowId: string | null = null;
        if (parsed.workflowId !== undefined) {
          const workflow = await tx.workflows.find(env, parsed.workflowId);
          if (!workflow) throw notFound('Workflow', parsed.workflowId);
          if (workflow.critical) {
            const message = `Preferences of the critical workflow "${workflow.identifier}" can not be updated`;
            throw new TidingsError('validation_failed', message, { issues: [{ path: 'workflowId', message }] });
          }
          workflowId = workflow._id;
        }
        const rows = await tx.preferences.list(env, subscriberId);
        const writes = applyPreferencesPatch(rows, parsed, { subscriberId, workflowId }, ctx.now());
        if (writes.length > 0) await tx.preferences.putMany(env, writes);
        return read(tx, subscriberId);
      });
    },
  };
}
