import type { ChannelPreferences, PreferenceRow, Schedule } from '../schemas/index.js';

export interface PreferencePatch {
  readonly channels?: ChannelPreferences;
  readonly schedule?: Schedule;
  /** A workflow's digest cadence (the id of a choice it offers); null removes the choice. */
  readonly digest?: string | null;
  /** Channel flags per category. */
  readonly categories?: Readonly<Record<string, ChannelPreferences>>;
}

/** Where a patch's `channels` go: the global row (no workflow), or one workflow's. */
export interface PatchTarget {
  readonly subscriberId: string;
  readonly workflowId: string | null;
  /** The category of each workflow the subscriber has a row for, so a category's flags reach past them. */
  readonly categoryOf?: (workflowId: string) => string | undefined;
}

/** What tells one row of a subscriber from another: its workflow, else its category, else global. */
export const preferenceRowKey = (row: Pick<PreferenceRow, 'workflowId' | 'category'>): string =>
  row.workflowId !== null ? `w:${row.workflowId}` : row.category !== undefined ? `c:${row.category}` : 'global';

const emptyRow = (subscriberId: string, workflowId: string | null, category: string | undefined, now: string): PreferenceRow => ({
  subscriberId,
  workflowId,
  ...(category !== undefined && { category }),
  enabled: true,
  channels: {},
  updatedAt: now,
});

const defined = (channels: ChannelPreferences | undefined) =>
  Object.fromEntries(Object.entries(channels ?? {}).filter(([, v]) => v !== undefined)) as ChannelPreferences;

/**
 * The rows to store after a PATCH (only those that change). Omitted members and channels keep their
 * values. A choice takes effect everywhere below it: global channels are removed from the subscriber's
 * category and workflow rows, a category's channels from the rows of that category's workflows. A
 * schedule is kept with the global row only and replaces the stored one whole. A digest choice is kept
 * with the workflow's row.
 */
export function applyPreferencesPatch(rows: readonly PreferenceRow[], patch: PreferencePatch, target: PatchTarget, now: string): PreferenceRow[] {
  const changed = new Map<string, PreferenceRow>();
  const latest = () => rows.map((row) => changed.get(preferenceRowKey(row)) ?? row);
  const current = (workflowId: string | null, category?: string) => {
    const key = preferenceRowKey({ workflowId, category });
    return changed.get(key) ?? rows.find((r) => preferenceRowKey(r) === key) ?? emptyRow(target.subscriberId, workflowId, category, now);
  };
  const put = (row: PreferenceRow) => changed.set(preferenceRowKey(row), row);
  /** Sets `channels` on one row and removes them from the rows below it that `below` picks. */
  const setChannels = (row: PreferenceRow, channels: ChannelPreferences, below: (other: PreferenceRow) => boolean) => {
    if (Object.keys(channels).length === 0) return;
    put({ ...row, channels: { ...row.channels, ...channels }, updatedAt: now });
    for (const other of latest()) {
      if (!below(other) || !Object.keys(channels).some((c) => c in other.channels)) continue;
      put({ ...other, channels: Object.fromEntries(Object.entries(other.channels).filter(([c]) => !(c in channels))), updatedAt: now });
    }
  };

  // Broad to narrow, so that within one patch the narrower choice stands.
  const channels = defined(patch.channels);
  if (target.workflowId === null) setChannels(current(null), channels, (other) => other.workflowId !== null || other.category !== undefined);
  for (const [category, flags] of Object.entries(patch.categories ?? {})) {
    setChannels(current(null, category), defined(flags), (other) => other.workflowId !== null && target.categoryOf?.(other.workflowId) === category);
  }
  if (target.workflowId !== null) setChannels(current(target.workflowId), channels, () => false);
  if (patch.schedule !== undefined) put({ ...current(null), schedule: patch.schedule, updatedAt: now });
  if (patch.digest !== undefined && target.workflowId !== null) {
    const { digest: _previous, ...row } = current(target.workflowId);
    put({ ...row, ...(patch.digest !== null && { digest: patch.digest }), updatedAt: now });
  }
  return [...changed.values()];
}
