import { chooseCadence, offeredCadences } from '../digests/cadence-choice.js';
import { CHANNELS, type Channel, type ChannelPreferences, type GlobalPreference, type OverrideSource, type PreferenceRow, type Workflow, type WorkflowPreference } from '../schemas/index.js';

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

export const globalRow = (rows: readonly PreferenceRow[]) => rows.find((r) => r.workflowId === null) ?? null;
export const workflowRow = (rows: readonly PreferenceRow[], workflowId: string) => rows.find((r) => r.workflowId === workflowId) ?? null;

/** One channel's effective flag and the layer that decided it. Later layers win. */
export function resolveChannel(
  workflow: Pick<Workflow, '_id' | 'preferenceSettings'>,
  rows: readonly PreferenceRow[],
  channel: Channel,
): { enabled: boolean; source: OverrideSource } {
  let enabled = true;
  let source: OverrideSource = 'template';
  const layers: [ChannelPreferences | undefined, OverrideSource][] = [
    [workflow.preferenceSettings, 'template'],
    [globalRow(rows)?.channels, 'subscriber'],
    [workflowRow(rows, workflow._id)?.channels, 'subscriber'],
  ];
  for (const [channels, from] of layers) {
    const value = channels?.[channel];
    if (value !== undefined) {
      enabled = value;
      source = from;
    }
  }
  return { enabled, source };
}

/**
 * A subscriber's effective preferences for one workflow: all channels on, then the workflow's
 * `preferenceSettings` (source `template`), then the subscriber's global channels, then its
 * per-workflow channels (source `subscriber`). `enabled: false` globally or for the workflow turns
 * every channel off. Only the channels of the workflow's active steps are listed. A workflow whose
 * digest takes its window from the subscriber also shows the cadence in effect and those offered.
 */
export function resolvePreferences(workflow: Workflow, rows: readonly PreferenceRow[]): WorkflowPreference {
  const enabled = (globalRow(rows)?.enabled ?? true) && (workflowRow(rows, workflow._id)?.enabled ?? true);
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

/** Whether a channel step may send for this subscriber, and why not. Critical workflows always may. */
export function channelPermitted(workflow: Workflow, rows: readonly PreferenceRow[], channel: Channel): { allowed: true } | { allowed: false; reason: string } {
  if (workflow.critical) return { allowed: true };
  if (globalRow(rows)?.enabled === false) return { allowed: false, reason: 'the subscriber turned all notifications off' };
  if (workflowRow(rows, workflow._id)?.enabled === false) return { allowed: false, reason: 'the subscriber turned this workflow off' };
  const { enabled, source } = resolveChannel(workflow, rows, channel);
  return enabled ? { allowed: true } : { allowed: false, reason: `${channel} is off by the ${source === 'template' ? "workflow's preference settings" : "subscriber's preferences"}` };
}
