import { z } from 'zod';
import { TidingsError, notFound } from '../../errors.js';
import { cadenceChoiceProblem } from '../../digests/cadence-choice.js';
import { applyPreferencesPatch, preferenceRowKey } from '../../preferences/merge-patch.js';
import { categoryName } from '../../preferences/categories.js';
import { resolveCategories, resolveGlobalPreference, resolvePreferences } from '../../preferences/resolve-preferences.js';
import {
  MAX_PREFERENCE_UPDATES,
  preferenceUpdateOptionsSchema,
  preferencesPatchSchema,
  type PreferenceChange,
  type PreferenceRow,
  type PreferenceUpdateOptions,
  type Preferences,
  type PreferencesPatch,
  type Workflow,
} from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { categoriesByKey } from '../categories/category-records.js';
import { MAX_HISTORY, preferenceHistory, recordPreferenceChange } from './preference-audit.js';

/** The patches of `updateMany`, under `preferences` so an issue names its item (`preferences[2].workflowId`). */
const patchListSchema = z.strictObject({
  preferences: z.array(preferencesPatchSchema).max(MAX_PREFERENCE_UPDATES, `must hold at most ${MAX_PREFERENCE_UPDATES} updates`),
});

const historyOptionsSchema = z.strictObject({ limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_HISTORY, `must be at most ${MAX_HISTORY}`).optional() });

type ParsedPatch = z.output<typeof preferencesPatchSchema>;

export function preferencesApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  async function read(repos: StorageRepositories, subscriberId: string): Promise<Preferences> {
    const [subscriber] = await repos.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    const rows = await repos.preferences.list(env, subscriberId);
    const workflows = (await repos.workflows.list(env)).filter((w) => w.active && !w.draft && !w.critical);
    const stored = workflows.some((w) => w.category !== undefined) ? await categoriesByKey(repos.records, env) : new Map();
    const described = (key: string) => ({ name: stored.get(key)?.name ?? categoryName(key), description: stored.get(key)?.description });
    return {
      global: resolveGlobalPreference(rows, workflows),
      categories: resolveCategories(rows, workflows, described),
      workflows: workflows.map((w) => resolvePreferences(w, rows)),
    };
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
   * and every changed row is written once at the end, with the change in the audit trail.
   * `at(i)` prefixes the paths of the i-th patch's fields.
   */
  async function applyAll(tx: StorageRepositories, subscriberId: string, patches: readonly ParsedPatch[], at: (i: number) => string, options: PreferenceUpdateOptions): Promise<{ preferences: Preferences; change: PreferenceChange }> {
    const [subscriber] = await tx.subscribers.getMany(env, [subscriberId]);
    if (!subscriber) throw notFound('Subscriber', subscriberId);
    const rows = new Map<string, PreferenceRow>((await tx.preferences.list(env, subscriberId)).map((r) => [preferenceRowKey(r), r]));
    const changed = new Set<string>();
    const now = ctx.now();
    const categoryOf = patches.some((p) => p.categories) ? await workflowCategories(tx) : undefined;
    for (const [i, patch] of patches.entries()) {
      const workflowId = (await targetOf(tx, patch, at(i)))?._id ?? null;
      for (const row of applyPreferencesPatch([...rows.values()], patch, { subscriberId, workflowId, ...(categoryOf && { categoryOf }) }, now)) {
        rows.set(preferenceRowKey(row), row);
        changed.add(preferenceRowKey(row));
      }
    }
    if (changed.size > 0) await tx.preferences.putMany(env, [...changed].map((key) => rows.get(key)!));
    const change = await recordPreferenceChange(ctx, tx, { subscriberId, origin: options.origin ?? 'api', patches, scope: options.scope });
    return { preferences: await read(tx, subscriberId), change };
  }

  async function workflowCategories(tx: StorageRepositories): Promise<(workflowId: string) => string | undefined> {
    const categories = new Map((await tx.workflows.list(env)).map((w) => [w._id, w.category] as const));
    return (workflowId) => categories.get(workflowId);
  }

  /** Runs the patches in one transaction, then tells the engine's listeners. */
  async function commit(subscriberId: string, patches: readonly ParsedPatch[], at: (i: number) => string, options: PreferenceUpdateOptions): Promise<Preferences> {
    const { preferences, change } = await storage.transaction((tx) => applyAll(tx, subscriberId, patches, at, options));
    ctx.events.emit('preference.updated', { change });
    return preferences;
  }

  return {
    /**
     * The subscriber's global preference (over the channels those workflows use), its categories, and
     * its effective preference for every active, non-critical workflow.
     */
    get: (subscriberId: string) => read(storage, subscriberId),
    /**
     * Merges a patch into the global preference, into categories' (`categories`), or into one
     * workflow's when `workflowId` (internal id, identifier or slug) is given; returns the preferences
     * after it. Omitted members keep their values. Critical workflows cannot be changed. The change is
     * recorded with its `origin` (default `api`) and emits `preference.updated`.
     */
    async update(subscriberId: string, patch: PreferencesPatch, options: PreferenceUpdateOptions = {}): Promise<Preferences> {
      const parsed = parseInput(preferencesPatchSchema, patch, 'preferences');
      const parsedOptions = parseInput(preferenceUpdateOptionsSchema, options, 'options');
      return commit(subscriberId, [parsed], () => '', parsedOptions);
    },
    /**
     * Merges several patches (each as `update` takes it; at most MAX_PREFERENCE_UPDATES) in order, in
     * one transaction: all of them apply or, when one names a missing or critical workflow, none.
     * Returns the preferences after them.
     */
    async updateMany(subscriberId: string, patches: readonly PreferencesPatch[], options: PreferenceUpdateOptions = {}): Promise<Preferences> {
      const { preferences } = parseInput(patchListSchema, { preferences: patches }, 'preferences');
      const parsedOptions = parseInput(preferenceUpdateOptionsSchema, options, 'options');
      return commit(subscriberId, preferences, (i) => `preferences[${i}].`, parsedOptions);
    },
    /** The subscriber's preference changes, newest first: what changed, how (origin), when, through which link. */
    async history(subscriberId: string, options: { limit?: number } = {}): Promise<PreferenceChange[]> {
      const { limit } = parseInput(historyOptionsSchema, options, 'options');
      return preferenceHistory(storage.records, env, subscriberId, limit ?? 100);
    },
  };
}
