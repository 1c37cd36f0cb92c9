import type { ChannelPreferences, PreferenceRow, Schedule } from '../schemas/index.js';

export interface PreferencePatch {
  readonly channels?: ChannelPreferences;
  readonly schedule?: Schedule;
  /** A workflow's digest cadence (the id of a choice it offers); null removes the choice. */
  readonly digest?: string | null;
}

const emptyRow = (subscriberId: string, workflowId: string | null, now: string): PreferenceRow => ({
  subscriberId,
  workflowId,
  enabled: true,
  channels: {},
  updatedAt: now,
});

const defined = (channels: ChannelPreferences | undefined) =>
  Object.fromEntries(Object.entries(channels ?? {}).filter(([, v]) => v !== undefined)) as ChannelPreferences;

/**
 * The rows to store after a PATCH (only those that change). Omitted members and channels keep their
 * values. A global channel patch also removes those channels from the subscriber's per-workflow rows,
 * so the global choice takes effect everywhere. A schedule is kept with the global row only and
 * replaces the stored one whole. A digest choice is kept with the workflow's row.
 */
export function applyPreferencesPatch(
  rows: readonly PreferenceRow[],
  patch: PreferencePatch,
  target: { subscriberId: string; workflowId: string | null },
  now: string,
): PreferenceRow[] {
  const channels = defined(patch.channels);
  const changed = new Map<string | null, PreferenceRow>();
  const current = (workflowId: string | null) =>
    changed.get(workflowId) ?? rows.find((r) => r.workflowId === workflowId) ?? emptyRow(target.subscriberId, workflowId, now);

  if (Object.keys(channels).length > 0) {
    const row = current(target.workflowId);
    changed.set(target.workflowId, { ...row, channels: { ...row.channels, ...channels }, updatedAt: now });
    if (target.workflowId === null) {
      for (const other of rows) {
        if (other.workflowId === null || !Object.keys(channels).some((c) => c in other.channels)) continue;
        const kept = Object.fromEntries(Object.entries(other.channels).filter(([c]) => !(c in channels)));
        changed.set(other.workflowId, { ...other, channels: kept, updatedAt: now });
      }
    }
  }
  if (patch.schedule !== undefined) {
    const row = current(null);
    changed.set(null, { ...row, schedule: patch.schedule, updatedAt: now });
  }
  if (patch.digest !== undefined && target.workflowId !== null) {
    const { digest: _previous, ...row } = current(target.workflowId);
    changed.set(target.workflowId, { ...row, ...(patch.digest !== null && { digest: patch.digest }), updatedAt: now });
  }
  return [...changed.values()];
}
