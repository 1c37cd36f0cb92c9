import type { Job } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import type { EngineContext } from '../context.js';
import type { CommitScope, Effect, EffectApplier, EnqueueEffect, JobEffect, JobResult, NextStep } from './job-result.js';
import { nextAttemptAt } from './jobs.js';

/** What a committed batch did: the jobs given up, whether it moved any job to run again, and what to announce now that it is stored. */
export interface Committed {
  readonly gaveUp: { job: Job; error: string }[];
  readonly rescheduled: boolean;
  readonly announcements: (() => void)[];
}

type Settled = Exclude<NextStep, { kind: 'threw' }> | { kind: 'gave_up'; error: string };

/** A job's next step; a job that threw retries or gives up, by the one retry policy. */
function settle(ctx: EngineContext, result: JobResult, now: Date): Settled {
  const { next } = result;
  if (next.kind !== 'threw') return next;
  const runAt = nextAttemptAt(result.job.attempts, ctx.options.maxAttempts, now);
  return runAt ? { kind: 'later', runAt, data: result.job.data, retry: true, lastError: next.error } : { kind: 'gave_up', error: next.error };
}

/** Completes or reschedules each job, but only while this worker holds it; returns the ids it held. */
async function finishJobs(ctx: EngineContext, tx: StorageRepositories, workerId: string, settled: readonly { result: JobResult; settled: Settled }[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (const { result, settled: s } of settled) {
    if (s.kind !== 'later') continue;
    const change = { runAt: s.runAt.toISOString(), data: s.data, lastError: s.lastError, resetAttempts: !s.retry };
    if (await tx.jobs.reschedule(ctx.env, result.job.id, workerId, change)) held.add(result.job.id);
  }
  const finished = settled.filter((s) => s.settled.kind !== 'later').map((s) => s.result.job.id);
  if (finished.length > 0) for (const id of await tx.jobs.complete(ctx.env, finished, workerId)) held.add(id);
  return held;
}

/** The runtime's own applier, after every feature's: the jobs the batch's runs (and appliers) asked for. */
const enqueueApplier = (env: string): EffectApplier => ({
  kinds: ['enqueue'],
  async apply(effects, { tx }) {
    const jobs = effects.flatMap(({ effect }) => (effect as EnqueueEffect).jobs);
    if (jobs.length > 0) await tx.jobs.enqueue(env, jobs);
  },
});

/**
 * Commits a batch whole or not at all, and only what this worker still holds: each job's completion
 * or reschedule matches only while its lease is this worker's, and says so, so a job another worker
 * took meanwhile contributes nothing (that worker's run stores its effects). Then the held jobs'
 * effects are applied by the appliers, in the order they are given; an applier may add effects for
 * the appliers after it.
 */
export async function commitBatch(ctx: EngineContext, workerId: string, now: Date, results: readonly JobResult[], appliers: readonly EffectApplier[]): Promise<Committed> {
  return ctx.storage.transaction(async (tx) => {
    const settled = results.map((result) => ({ result, settled: settle(ctx, result, now) }));
    const held = await finishJobs(ctx, tx, workerId, settled);
    const announcements: (() => void)[] = [];
    const all = [...appliers, enqueueApplier(ctx.env)];
    const byKind = new Map<string, number>();
    for (const [at, applier] of all.entries()) for (const kind of applier.kinds) if (!byKind.has(kind)) byKind.set(kind, at);
    // Each applier's effects, in the order the runs (then earlier appliers) gave them.
    const groups: JobEffect[][] = all.map(() => []);
    const applierOf = (effect: Effect, job: Job) => {
      const at = byKind.get(effect.kind);
      if (at === undefined) throw new Error(`no applier for the effect "${effect.kind}" of a ${job.kind} job`);
      return at;
    };
    for (const { result } of settled) if (held.has(result.job.id)) for (const effect of result.effects) groups[applierOf(effect, result.job)]!.push({ job: result.job, effect });
    let current = -1;
    const scope: CommitScope = {
      tx,
      now,
      add(job, effect) {
        const at = applierOf(effect, job);
        // An effect is applied by an applier after the one adding it: one added for an applier that ran is a wiring mistake.
        if (at <= current) throw new Error(`the effect "${effect.kind}" was added after its applier ran`);
        groups[at]!.push({ job, effect });
      },
      afterCommit: (announce) => announcements.push(announce),
    };
    for (current = 0; current < all.length; current++) {
      const mine = groups[current]!;
      if (mine.length > 0) await all[current]!.apply(mine, scope);
    }
    const gaveUp = settled.flatMap(({ result, settled: s }) => (s.kind === 'gave_up' && held.has(result.job.id) ? [{ job: result.job, error: s.error }] : []));
    return { gaveUp, rescheduled: settled.some(({ result, settled: s }) => s.kind === 'later' && held.has(result.job.id)), announcements };
  });
}
