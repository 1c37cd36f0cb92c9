import { chooseCadence, offeredCadences } from '../digests/cadence-choice.js';
import { CHANNELS, type CategoryPreference, type Channel, type ChannelPreferences, type GlobalPreference, type OverrideSource, type PreferenceRow, type Workflow, type WorkflowPreference } from '../schemas/index.js';

/** The channels a workflow can send on: the types of its active steps (and their variants), in channel order. */
export function workflowChannels(workflow: Pick<Workflow, 'steps'>): Channel[] {
  const used = new Set<string>();
  for (const step of workflow.steps) {
    if (!step.active) continue;
    used.add(step.template.type);
    for (const variant of step.variants) if (variant.active) used.add(variant.template.type);
  }
  return CHANNELS.filter((channel) => used.has(channel));
}

export const globalRow = (rows: readonly PreferenceRow[]) => rows.find((r) => r.workflowId === null && r.category === undefined) ?? null;
export const categoryRow = (rows: readonly PreferenceRow[], category: string | undefined) =>
  category === undefined ? null : rows.find((r) => r.workflowId === null && r.category === category) ?? null;
export const workflowRow = (rows: readonly PreferenceRow[], workflowId: string) => rows.find((r) => r.workflowId === workflowId) ?? null;

/** The layer that decided a channel: the workflow's settings, or the subscriber's global, category or workflow preference. */
export type PreferenceLayer = 'defaults' | 'global' | 'category' | 'workflow';

/**
 * One channel's effective flag and the layer that decided it. Later layers win: the workflow's
 * `preferenceSettings` (defaults), then the subscriber's global, category and workflow preferences.
 */
export function resolveChannel(
  workflow: Pick<Workflow, '_id' | 'preferenceSettings' | 'category'>,
  rows: readonly PreferenceRow[],
  channel: Channel,
): { enabled: boolean; source: OverrideSource; layer: PreferenceLayer } {
  let enabled = true;
  let layer: PreferenceLayer = 'defaults';
  const layers: [ChannelPreferences | undefined, PreferenceLayer][] = [
    [workflow.preferenceSettings, 'defaults'],
    [globalRow(rows)?.channels, 'global'],
    [categoryRow(rows, workflow.category)?.channels, 'category'],
    [workflowRow(rows, workflow._id)?.channels, 'workflow'],
  ];
  for (const [channels, from] of layers) {
    const value = channels?.[channel];
    if (value !== undefined) {
      enabled = value;
      layer = from;
    }
  }
  return { enabled, source: layer === 'defaults' ? 'template' : 'subscriber', layer };
}

/** Whether the subscriber left the workflow on at every level (global, category, workflow). */
const workflowEnabled = (workflow: Pick<Workflow, '_id' | 'category'>, rows: readonly PreferenceRow[]) =>
  (globalRow(rows)?.enabled ?? true) && (categoryRow(rows, workflow.category)?.enabled ?? true) && (workflowRow(rows, workflow._id)?.enabled ?? true);

/**
 * A subscriber's effective preferences for one workflow: all channels on, then the workflow's
 * `preferenceSettings` (source `template`), then the subscriber's global, category and per-workflow
 * channels (source `subscriber`). `enabled: false` at any of those levels turns every channel off. Only the channels of the workflow's active steps are listed. A workflow whose
 * digest takes its window from the subscriber also shows the cadence in effect and those offered.
 */
export function resolvePreferences(workflow: Workflow, rows: readonly PreferenceRow[]): WorkflowPreference {
  const enabled = workflowEnabled(workflow, rows);
  const channels: ChannelPreferences = {};
  const overrides: WorkflowPreference['overrides'] = [];
  for (const channel of workflowChannels(workflow)) {
    const resolved = resolveChannel(workflow, rows, channel);
    channels[channel] = enabled && resolved.enabled;
    overrides.push({ channel, source: resolved.source });
  }
  return {
    enabled,
    channels,
    overrides,
    workflow: { slug: workflow.slug, identifier: workflow.identifier, name: workflow.name, updatedAt: workflow.updatedAt },
    ...(workflow.category !== undefined && { category: workflow.category }),
    ...digestPreference(workflow, rows),
  };
}

/** The digest cadence in effect for a workflow whose digest the subscriber chooses, and the cadences it offers. */
function digestPreference(workflow: Workflow, rows: readonly PreferenceRow[]): Pick<WorkflowPreference, 'digest'> {
  const offer = offeredCadences(workflow);
  if (!offer) return {};
  const chosen = chooseCadence(offer, workflowRow(rows, workflow._id)?.digest);
  return { digest: { choice: chosen.choice.id, source: chosen.source, default: offer.default, choices: offer.choices } };
}

/**
 * The global preference: the channels the given workflows send on (as Novu lists them: a channel no
 * workflow uses is not offered), each on unless the subscriber turned it off, and the schedule.
 */
export function resolveGlobalPreference(rows: readonly PreferenceRow[], workflows: readonly Pick<Workflow, 'steps'>[]): GlobalPreference {
  const row = globalRow(rows);
  const used = new Set(workflows.flatMap(workflowChannels));
  const channels = Object.fromEntries(CHANNELS.filter((c) => used.has(c)).map((c) => [c, row?.channels[c] ?? true])) as ChannelPreferences;
  return { enabled: row?.enabled ?? true, channels, ...(row?.schedule && { schedule: row.schedule }) };
}

/**
 * The categories of the given workflows, in order of first use, each over the channels its workflows
 * send on: the subscriber's category flag, else the global one, else on. `described` names them.
 */
export function resolveCategories(
  rows: readonly PreferenceRow[],
  workflows: readonly Workflow[],
  described: (key: string) => { name: string; description?: string | undefined },
): CategoryPreference[] {
  const members = new Map<string, Workflow[]>();
  for (const workflow of workflows) if (workflow.category !== undefined) members.set(workflow.category, [...(members.get(workflow.category) ?? []), workflow]);
  const global = globalRow(rows);
  return [...members].map(([key, list]) => {
    const own = categoryRow(rows, key);
    const used = new Set(list.flatMap(workflowChannels));
    const channels = Object.fromEntries(CHANNELS.filter((c) => used.has(c)).map((c) => [c, own?.channels[c] ?? global?.channels[c] ?? true])) as ChannelPreferences;
    const { name, description } = described(key);
    return { key, name, ...(description && { description }), channels, workflows: list.map((w) => w.identifier) };
  });
}

/**
 * Whether a channel step may send for this subscriber, and why not. The order: critical workflows
 * always may; then the subscriber's workflow, category and global preferences (the most specific that
 * says anything), then the workflow's defaults.
 */
export function channelPermitted(workflow: Workflow, rows: readonly PreferenceRow[], channel: Channel): { allowed: true } | { allowed: false; reason: string } {
  if (workflow.critical) return { allowed: true };
  if (globalRow(rows)?.enabled === false) return { allowed: false, reason: 'the subscriber turned all notifications off' };
  if (categoryRow(rows, workflow.category)?.enabled === false) return { allowed: false, reason: `the subscriber turned the category "${workflow.category}" off` };
  if (workflowRow(rows, workflow._id)?.enabled === false) return { allowed: false, reason: 'the subscriber turned this workflow off' };
  const { enabled, layer } = resolveChannel(workflow, rows, channel);
  return enabled ? { allowed: true } : { allowed: false, reason: `${channel} is off by ${OFF_BY[layer](workflow)}` };
}

const OFF_BY: Record<PreferenceLayer, (workflow: Workflow) => string> = {
  defaults: () => "the workflow's preference settings",
  global: () => "the subscriber's preferences",
  category: (workflow) => `the subscriber's preferences for the category "${workflow.category}"`,
  workflow: () => "the subscriber's preferences",
};
