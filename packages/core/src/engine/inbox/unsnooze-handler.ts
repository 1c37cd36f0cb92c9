import { applyUnsnooze } from '../../messages/transitions.js';
import { resultOf } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import { messageUpdate } from './inbox-effects.js';

/** Brings back a snoozed message when its snooze ends, unless it was moved or lifted meanwhile. */
export const unsnoozeHandler: EngineJobHandler<'unsnooze'> = async (job, { now }) => {
  const at = now.toISOString();
  const apply = (stored: Parameters<typeof applyUnsnooze>[0]) => (stored.snoozedUntil !== undefined && stored.snoozedUntil <= at ? applyUnsnooze(stored, at) : null);
  return resultOf(job, { kind: 'done' }, [messageUpdate(job.subscriberId, job.data.messageId, apply)]);
};
