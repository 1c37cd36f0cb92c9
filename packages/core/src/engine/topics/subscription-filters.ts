import type { z } from 'zod';
import type { SubscriptionPreferenceRecord, Workflow, subscriptionPreferenceFilterSchema } from '../../schemas/index.js';

type Filter = z.output<typeof subscriptionPreferenceFilterSchema>;

/** A workflow a subscriber can hold a subscription preference for: live, and not critical (critical workflows always send). */
export const subscribable = (workflow: Workflow) => workflow.active && !workflow.draft && !workflow.critical;

/** Whether a reference (internal id, identifier or slug) names the workflow. */
export const names = (workflow: Workflow, ref: string) => workflow._id === ref || workflow.identifier === ref || workflow.slug === ref;

/**
 * The workflows a filter names. A reference or tag that names no workflow names none, as in Novu
 * (which logs it): a `<Subscription>` listing a workflow not made yet still subscribes.
 */
function named(filter: Filter, workflows: readonly Workflow[]): Workflow[] {
  if (typeof filter === 'string') return workflows.filter((w) => names(w, filter));
  if ('workflowId' in filter) return workflows.filter((w) => names(w, filter.workflowId));
  const refs = [...(filter.filter.workflowIds ?? []), ...(filter.filter.workflows ?? []).map((w) => w.workflowId)];
  const tags = filter.filter.tags ?? [];
  return workflows.filter((w) => refs.some((ref) => names(w, ref)) || tags.some((tag) => w.tags.includes(tag)));
}

/** The workflows that references and tags name, each once, in the order of `workflows`. */
export function workflowsNamed(workflows: readonly Workflow[], refs: readonly string[], tags: readonly string[]): Workflow[] {
  return workflows.filter((w) => subscribable(w) && (refs.some((ref) => names(w, ref)) || tags.some((tag) => w.tags.includes(tag))));
}

/**
 * The preferences a subscription starts with from filters: one per subscribable workflow they name,
 * on or off as the first filter naming it says (on when it says nothing), every channel on.
 */
export function preferencesFromFilters(filters: readonly Filter[], workflows: readonly Workflow[]): SubscriptionPreferenceRecord[] {
  const chosen = new Map<string, boolean>();
  for (const filter of filters) {
    const enabled = typeof filter === 'string' ? undefined : filter.enabled;
    for (const workflow of named(filter, workflows)) if (subscribable(workflow) && !chosen.has(workflow._id)) chosen.set(workflow._id, enabled ?? true);
  }
  return workflows.flatMap((w) => (chosen.has(w._id) ? [{ workflowId: w._id, enabled: chosen.get(w._id)!, channels: {} }] : []));
}
