import { randomUUID } from 'node:crypto';
import type { Job, JobKind } from '../../schemas/index.js';
import { laneTakesAny, type JobLane, type Storage } from '../../storage.js';
import type { EngineContext } from '../context.js';
import { commitBatch, type Committed } from './commit-batch.js';
import { liveWorkers } from './live-workers.js';
import { lanes as sharedLanes, mapInLanes, mayClaimMore } from './lanes.js';
import { loopYielder, nextTurn } from './loop-yield.js';
import { runJob, type JobHandlers } from './run-job.js';
import type { EffectApplier, JobResult } from './job-result.js';
import { watchWrite } from './write-health.js';

/** The spans of one batch's jobs, when the app traces (see `telemetry/job-spans.ts`). */
export interface BatchSpans {
  run<T>(job: Job, work: () => Promise<T>): Promise<T>;
  committed(results: readonly JobResult[], gaveUp: ReadonlySet<string>): void;
  failed(error: unknown): void;
}

/**
 * What the runtime runs, handed to it by the composition: the runtime knows jobs, leases, batches and
 * commits, and nothing of the features whose handlers and appliers these are.
 */
export interface JobKinds<B> {
  readonly handlers: JobHandlers<B>;
  /** Reads what a batch's jobs need, once for the whole batch. */
  loadBatch(jobs: readonly Job[], now: Date): Promise<B>;
  /** Applied in this order by each batch's commit. */
  readonly appliers: readonly EffectApplier[];
  /** Starts the batch's spans; null when nothing traces. */
  startSpans(jobs: readonly Job[], batch: B): BatchSpans | null;
}

export interface JobRunner {
  /**
   * Claims and runs every job due now, including those enqueued while it runs; returns how many ran.
   * `keepClaiming` is asked before each claim after the first: false ends the run once the batch in
   * hand has committed (a stopping loop claims nothing more).
   */
  runDue(keepClaiming?: () => boolean): Promise<number>;
  readonly workerId: string;
  /** The kinds of job this runner claims. */
  readonly lane: JobLane;
  /** How long the jobs in hand have gone without one of them finishing (0 when none is in hand). */
  stalledForMs(): number;
}


/** A job that ran out of render budget in a shared batch runs in a batch of its own, without the mark after that. */
function runsAlone(job: Job): boolean {
  return job.kind === 'walk' && job.data.runAlone === true;
}

function withoutAloneMark(job: Job): Job {
  if (job.kind !== 'walk') return job;
  const { runAlone: _mark, ...data } = job.data;
  return { ...job, data };
}

/**
 * Renews the batch's leases every third of a lease while it runs, so slow providers never lose them.
 * Stopping waits for a renewal in flight: one landing after the commit (or after the jobs were handed
 * back) would lease them again, or lock their rows while the next claim passes them over.
 */
function keepLeases(ctx: EngineContext, workerId: string, ids: readonly string[]): () => Promise<void> {
  const every = Math.max(50, Math.floor(ctx.options.leaseMs / 3));
  let inFlight: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    const until = new Date(ctx.clock.now().getTime() + ctx.options.leaseMs).toISOString();
    // A failed renewal is harmless: the commit renews again and drops the jobs it no longer holds.
    // Every renewal is waited for, not only the last: a slow one may still be in flight when the next is asked.
    inFlight = Promise.all([inFlight, ctx.storage.jobs.renew(ctx.env, ids, workerId, until).catch(() => undefined)]);
  }, every);
  timer.unref();
  return () => {
    clearInterval(timer);
    return inFlight.then(() => undefined);
  };
}

/**
 * The job runner: claim due jobs, then per batch load → walk and deliver → commit, the commit holding
 * every effect of the batch. `registry` is the storage the user passed in, by which workers of one
 * process know each other.
 */
/** Which jobs a runner claims, and how many at a time: the walk lane, the fan-out lane or the webhook lane. */
export interface RunnerLane extends JobLane {
  readonly batchSize: number;
  /** Frees the leases of workers that died with their process (once per engine, shared by its lanes). */
  readonly takeBackDeadLeases: () => Promise<void>;
}

/**
 * On a single-process storage, leases of workers not running in this process died with theirs: they
 * are freed once, when the engine first runs jobs (by either lane), so a lane started later never
 * takes back a lease a worker of this engine took since.
 */
export function deadLeaseTakeBack(ctx: EngineContext, registry: Storage): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => {
    if (ctx.storage.capabilities.multiProcess) return Promise.resolve();
    done ??= ctx.storage.jobs.releaseLeases(ctx.env, liveWorkers.of(registry)).then(
      () => undefined,
      (error: unknown) => {
        done = null;
        throw error;
      },
    );
    return done;
  };
}

/** Webhook deliveries and the outbox pages that make them: a lane of their own, so a slow receiver never holds a walk's commit. */
export const WEBHOOK_KINDS: readonly JobKind[] = ['webhook', 'outbox'];

/**
 * The pages of large audiences: a lane of their own, a page or two a batch, so a broadcast's walks
 * commit in small transactions and the jobs of other triggers never wait behind a batch of pages.
 */
export const FANOUT_KINDS: readonly JobKind[] = ['fanout'];

/** Pages of large audiences one batch of the fan-out lane takes. */
export const FANOUT_PAGES_PER_BATCH = 5;

export function createJobRunner<B>(ctx: EngineContext, kinds: JobKinds<B>, registry: Storage, lane: RunnerLane): JobRunner {
  const { storage, env, options } = ctx;
  const workerId = `worker-${randomUUID()}`;
  let inHand = 0;
  /** The jobs running at once in this runner, across the batches in hand: `deliveryConcurrency`. */
  const lanes = sharedLanes(options.deliveryConcurrency);
  let lastProgress = performance.now();
  const progressed = () => (lastProgress = performance.now());

  async function runBatch(jobs: readonly Job[], now: Date): Promise<void> {
    // A turn of the loop before each batch: batches of one heavy walk each never run back to back without one.
    await nextTurn();
    if (inHand === 0) progressed();
    inHand++;
    try {
      await runBatchInHand(jobs, now);
    } finally {
      inHand--;
      progressed();
    }
  }

  async function runBatchInHand(jobs: readonly Job[], now: Date): Promise<void> {
    const stopKeeping = keepLeases(ctx, workerId, jobs.map((j) => j.id));
    let committed: Committed;
    let spans: BatchSpans | null = null;
    try {
      const batch = await kinds.loadBatch(jobs, now);
      spans = kinds.startSpans(jobs, batch);
      const breathe = loopYielder();
      const results = await mapInLanes(jobs, lanes, async (job) => {
        await breathe();
        const run = () => runJob(kinds.handlers, job, { ctx, batch, now });
        try {
          return await (spans ? spans.run(job, run) : run());
        } finally {
          progressed();
        }
      });
      await stopKeeping();
      committed = await watchWrite(ctx, () => commitBatch(ctx, workerId, now, results, kinds.appliers));
      if (committed.rescheduled) changes++;
      spans?.committed(results, new Set(committed.gaveUp.map((g) => g.job.id)));
    } catch (error) {
      spans?.failed(error);
      await stopKeeping();
      // Hand the jobs back at once (best effort) instead of leaving them leased until the lease ends.
      await storage.jobs.renew(env, jobs.map((j) => j.id), workerId, now.toISOString()).catch(() => undefined);
      throw error;
    } finally {
      await stopKeeping();
    }
    for (const announce of committed.announcements) announce();
    for (const { job, error } of committed.gaveUp) ctx.events.emit('job.failed', { job, error });
  }

  /** One claim's jobs: those marked to run alone first, each in a batch of its own, then the rest as one batch. */
  async function runClaim(jobs: readonly Job[], now: Date): Promise<void> {
    const alone = jobs.filter(runsAlone);
    // The rest of the claim keeps its leases while the lone jobs run first.
    const stopKeeping = alone.length > 0 ? keepLeases(ctx, workerId, jobs.map((j) => j.id)) : async () => undefined;
    try {
      for (const job of alone) await runBatch([withoutAloneMark(job)], now);
    } finally {
      await stopKeeping();
    }
    if (alone.length < jobs.length) await runBatch(alone.length === 0 ? jobs : jobs.filter((job) => !runsAlone(job)), now);
  }

  const ofLane = (kinds: readonly JobKind[]) => laneTakesAny(lane, kinds);
  /** Jobs of the lane enqueued in this engine, and commits of this runner that moved a job: what makes a claim worth making again. */
  let changes = 0;
  ctx.events.on('jobs.enqueued', ({ kinds }) => ofLane(kinds) && changes++);

  /** Waits until a batch in hand ends or jobs of the lane are enqueued in this process, whichever comes first. */
  async function batchEndedOrEnqueued(claims: ReadonlySet<Promise<void>>): Promise<void> {
    let heard = (_: { kinds: readonly JobKind[] }) => {};
    const enqueued = new Promise<void>((resolve) => (heard = ({ kinds }) => ofLane(kinds) && resolve()));
    ctx.events.on('jobs.enqueued', heard);
    try {
      await Promise.race([...claims, enqueued]);
    } finally {
      ctx.events.off('jobs.enqueued', heard);
    }
  }

  return {
    workerId,
    lane,
    stalledForMs: () => (inHand > 0 ? performance.now() - lastProgress : 0),
    async runDue(keepClaiming = () => true) {
      liveWorkers.enter(registry, workerId);
      /** The claims in hand: batches overlap while their jobs leave lanes free (`mayClaimMore`). */
      const claims = new Set<Promise<void>>();
      let jobsInHand = 0;
      let failure: { error: unknown } | null = null;
      // The count of changes at the last claim that came back short: while no job was enqueued or
      // moved since, a claim made while batches are in hand would most likely find nothing.
      let drainedAt = -1;
      const drained = () => drainedAt === changes;
      try {
        await lane.takeBackDeadLeases();
        let ran = 0;
        for (;;) {
          if (failure || (ran > 0 && !keepClaiming())) break;
          if (claims.size > 0 && (drained() || !mayClaimMore(claims.size, jobsInHand, lane.batchSize, options.deliveryConcurrency))) {
            await (drained() ? batchEndedOrEnqueued(claims) : Promise.race(claims));
            continue;
          }
          // With no batch in hand, claim again even after a short claim: a claim skips the jobs other
          // workers are claiming at that moment (`skip locked`), so a short one does not mean none is left.
          const now = ctx.clock.now();
          const changesBefore = changes;
          const jobs = await storage.jobs.claimDue({ env, workerId, now: now.toISOString(), limit: lane.batchSize, leaseMs: options.leaseMs, ...(lane.kinds && { kinds: lane.kinds }), ...(lane.exceptKinds && { exceptKinds: lane.exceptKinds }) });
          if (jobs.length < lane.batchSize) drainedAt = changesBefore;
          if (jobs.length === 0) {
            // Nothing due now: wait for a batch in hand to end (it may enqueue more), or for jobs
            // enqueued meanwhile (a transactional trigger must not wait for a broadcast's batch).
            if (claims.size === 0) break;
            await batchEndedOrEnqueued(claims);
            continue;
          }
          ctx.telemetry.metrics?.claimed(jobs, now);
          // A job that must run alone (its walk spent its render budget) runs with no other batch in
          // hand: overlapping batches would share the CPU it is measured on, and it would never fail.
          const exclusive = jobs.some(runsAlone);
          if (exclusive) await Promise.allSettled([...claims]);
          jobsInHand += jobs.length;
          const claim: Promise<void> = runClaim(jobs, now)
            .catch((error: unknown) => void (failure ??= { error }))
            .finally(() => {
              jobsInHand -= jobs.length;
              claims.delete(claim);
            });
          claims.add(claim);
          ran += jobs.length;
          if (exclusive) await claim;
        }
        await Promise.all(claims);
        if (failure) throw (failure as { error: unknown }).error;
        return ran;
      } finally {
        // A failed claim leaves no batch running past the call.
        await Promise.allSettled(claims);
        liveWorkers.leave(registry, workerId);
      }
    },
  };
}
