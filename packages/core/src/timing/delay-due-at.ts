import type { DelayMetadata, TimeUnit } from '../schemas/index.js';
import { readPath } from '../util/path.js';
import { addTime } from './add-time.js';

export type DelayDue = { ok: true; runAt: Date } | { ok: false; error: string };

export interface DelayOverride {
  readonly amount: number;
  readonly unit: TimeUnit;
}

/**
 * When the steps after a delay run. Regular: `amount unit` after `reachedAt` (the trigger's
 * `overrides.delay` replaces both). Scheduled: the ISO 8601 date at `delayPath` in the payload; a past
 * date means now. A missing or unparsable date is an error.
 */
export function delayDueAt(
  metadata: DelayMetadata,
  reachedAt: Date,
  context: { payload: Record<string, unknown>; timeZone?: string | null; override?: DelayOverride | null },
): DelayDue {
  if (metadata.type === 'scheduled') {
    const value = readPath(context.payload, metadata.delayPath);
    const at = typeof value === 'string' ? new Date(value) : undefined;
    if (at === undefined || Number.isNaN(at.getTime())) {
      return { ok: false, error: `payload.${metadata.delayPath} must hold an ISO 8601 date for the scheduled delay` };
    }
    return { ok: true, runAt: at.getTime() < reachedAt.getTime() ? reachedAt : at };
  }
  const amount = context.override?.amount ?? metadata.amount ?? 0;
  const unit = context.override?.unit ?? metadata.unit ?? 'seconds';
  return { ok: true, runAt: addTime(reachedAt, amount, unit, context.timeZone ?? 'UTC') };
}
