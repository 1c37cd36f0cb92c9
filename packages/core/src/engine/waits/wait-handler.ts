import type { EngineJobHandler } from '../walk/batch-data.js';
import { resultOf } from '../runtime/job-result.js';
import type { WaitTimeoutEffect } from './wait-effects.js';

/** A wait's timeout job: the commit ends the wait, if a signal or a token did not end it first. */
export const waitHandler: EngineJobHandler<'wait'> = async (job) => {
  const timeout: WaitTimeoutEffect = { kind: 'wait.timeout', waitId: job.data.waitId };
  return resultOf(job, { kind: 'done' }, [timeout]);
};
