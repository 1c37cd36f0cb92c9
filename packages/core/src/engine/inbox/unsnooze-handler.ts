import { applyUnsnooze } from '../../messages/transitions.js';
import { resultOf, type JobHandler } from '../runtime/job-result.js';

/** Brings back a snoozed message when its snooze ends, unless it was moved or lifted meanwhile. */
export const unsnoozeHandler: JobHandler<'unsnooze'> = async (job, { now }) => {
  const at = now.toISOString();
  const apply = (stored: Parameters<typeof applyUnsnooze>[0]) => (stored.snoozedUntil !== undefined && stored.snoozedUntil <= at ? applyUnsnooze(stored, at) : null);
  return resultOf(job, { kind: 'done' }, { messageUpdates: [{ subscriberId: job.subscriberId, messageId: job.data.messageId, apply }] });
};
