import { z } from 'zod';
import { TidingsError, notFound } from '../../errors.js';
import { cadenceChoiceProblem } from '../../digests/cadence-choice.js';
import { applyPreferencesPatch } from '../../preferences/merge-patch.js';
import { resolveGlobalPreference, resolvePreferences } from '../../preferences/resolve-preferences.js';
import { MAX_PREFERENCE_UPDATES, preferencesPatchSchema, type PreferenceRow, type Preferences, type PreferencesPatch, type Workflow } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

/** The patches of `updateMany`, under `preferences` so an issue names its item (`preferences[2].workflowId`). */
const patchListSchema = z.strictObject({
  preferences: z.array(preferencesPatchSchema).max(MAX_PREFERENCE_UPDATES, `must hold at most ${MAX_PREFERENCE_UPDATES} updates`),
});

type ParsedPatch = z.output<typeof preferencesPatchSchema>;

export function preferencesApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function read(repos: StorageRepositories, subscriberId: string): Promise<Preferences> {
    const [subscriber] = await repos.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    const rows = await repos.preferences.list(env, subscriberId);
    const workflows = (await repos.workflows.list(env)).filter((w) => w.active && !w.draft && !w.critical);
    return { global: resolveGlobalPreference(rows, workflows), workflows: workflows.map((w) => resolvePreferences(w, rows)) };
  }

  /** The workflow a patch names (null: the global preference); `at` is the prefix of its fields' paths. */
  async function targetOf(tx: StorageRepositories, patch: ParsedPatch, at: string): Promise<Workflow | null> {
    if (patch.workflowId === undefined) return null;
    const workflow = await tx.workflows.find(env, patch.workflowId);
    if (!workflow) throw notFound('Workflow', patch.workflowId);
    if (workflow.critical) {
      const message = `Preferences of the critical workflow "${workflow.identifier}" can not be updated`;
      throw new TidingsError('validation_failed', message, { issues: [{ path: `${at}workflowId`, message }] });
    }
    const problem = typeof patch.digest === 'string' ? cadenceChoiceProblem(workflow, patch.digest) : null;
    if (problem) throw new TidingsError('validation_failed', `Invalid preferences: ${at}digest: ${problem}`, { issues: [{ path: `${at}digest`, message: problem }] });
    return workflow;
  }

  /**
   * Applies the patches in order, in the transaction `tx`: each sees the rows the ones before it left,
   * and every changed row is written once at the end. `at(i)` prefixes the paths of the i-th patch's fields.
   */
  async function applyAll(tx: StorageRepositories, subscriberId: string, patches: readonly ParsedPatch[], at: (i: number) => string): Promise<Preferences> {
    const [subscriber] = await tx.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    const rows = new Map<string | null, PreferenceRow>((await tx.preferences.list(env, subscriberId)).map((r) => [r.workflowId, r]));
    const changed = new Set<string | null>();
    const now = ctx.now();
    for (const [i, patch] of patches.entries()) {
      const workflowId = (await targetOf(tx, patch, at(i)))?._id ?? null;
      for (const row of applyPreferencesPatch([...rows.values()], patch, { subscriberId, workflowId }, now)) {
        rows.set(row.workflowId, row);
        changed.add(row.workflowId);
      }
    }
    if (changed.size > 0) await tx.preferences.putMany(env, [...changed].map((id) => rows.get(id)!));
    return read(tx, subscriberId);
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
      return storage.transaction((tx) => applyAll(tx, subscriberId, [parsed], () => ''));
    },
    /**
     * Merges several patches (each as `update` takes it; at most MAX_PREFERENCE_UPDATES) in order, in
     * one transaction: all of them apply or, when one names a missing or critical workflow, none.
     * Returns the preferences after them.
     */
    async updateMany(subscriberId: string, patches: readonly PreferencesPatch[]): Promise<Preferences> {
      const { preferences } = parseInput(patchListSchema, { preferences: patches }, 'preferences');
      return storage.transaction((tx) => applyAll(tx, subscriberId, preferences, (i) => `preferences[${i}].`));
    },
  };
}
