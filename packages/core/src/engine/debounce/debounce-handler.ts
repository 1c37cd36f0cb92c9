import type { DebounceRecord } from '../../debounce/debounce-burst.js';
import type { TriggerResult } from '../../schemas/index.js';
import { resultOf, waitUntil } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import { debounceRan } from './debounce-effects.js';
import { readDebounces } from './debounce-records.js';

/** Triggers a burst's last event, past every debounce, in a transaction of its own. */
export type FireBurst = (burst: DebounceRecord) => Promise<TriggerResult>;

/**
 * Runs a burst once it went quiet: triggers its last event (its own commit; the same event again
 * after a crash is refused as a used transactionId, so it runs once), then ends the burst in the
 * job's commit unless a trigger joined it meanwhile. A burst that grew since the job was due waits on.
 */
export const debounceHandler =
  (fire: FireBurst): EngineJobHandler<'debounce'> =>
  async (job, { ctx, now }) => {
    const burst = (await readDebounces(ctx.storage.records, ctx.env, [job.data.group])).get(job.data.group);
    if (!burst) return resultOf(job, { kind: 'done' });
    if (new Date(burst.dueAt).getTime() > now.getTime()) return resultOf(job, waitUntil(job, new Date(burst.dueAt)));
    const result = await fire(burst);
    return resultOf(job, { kind: 'done' }, [debounceRan(burst, result)]);
  };
