import { newId } from '../../ids.js';
import type { Job, JobPayload, JobPriority } from '../../schemas/index.js';

type NewJob = { env: string; runAt: string; transactionId: string; subscriberId: string; key?: string; priority?: JobPriority } & JobPayload;

/** Every job record the engine makes comes from here: a fresh job, unleased, with no attempt yet. */
export function newJob(fields: NewJob, now: Date): Job {
  const job = { id: newId(now), environmentId: fields.env, kind: fields.kind, runAt: fields.runAt, attempts: 0, lockedBy: null, lockedUntil: null, transactionId: fields.transactionId, subscriberId: fields.subscriberId, data: fields.data, lastError: null } as Job;
  if (fields.key !== undefined) job.key = fields.key;
  if (fields.priority === 'bulk') job.priority = 'bulk';
  return job;
}

/** The key of the job that flushes a digest: one per digest, so every join moves the same job. */
export const digestFlushKey = (digestId: string) => `digest:${digestId}`;

/** Milliseconds before the next attempt of a failed job: 1 s, 2 s, 4 s … capped at an hour. */
export const retryDelayMs = (attempts: number) => Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

/**
 * The one retry policy, for failed provider calls and jobs that threw: after `attempts` attempts
 * (counted at claim), the next one is due at the returned instant, or null when the job gives up.
 * A service that said how long to wait (`Retry-After`, capped at an hour) is not tried before then.
 */
export function nextAttemptAt(attempts: number, maxAttempts: number, now: Date, notBeforeMs = 0): Date | null {
  return attempts >= maxAttempts ? null : new Date(now.getTime() + Math.max(retryDelayMs(attempts), Math.min(notBeforeMs, 3_600_000)));
}
