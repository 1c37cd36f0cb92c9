import type { Job, JobData, JobKind, JobOf } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import type { EngineContext } from '../context.js';

/** Where a job goes after its run. */
export type NextStep =
  | { readonly kind: 'done' }
  | { readonly kind: 'later'; readonly runAt: Date; readonly data: JobData; readonly retry: boolean; readonly lastError: string | null }
  | { readonly kind: 'threw'; readonly error: string };

/**
 * Something a job's run asks its batch's commit to store: a feature's record of what happened,
 * applied by that feature's applier inside the commit's transaction. The runtime knows only `kind`.
 */
export interface Effect {
  readonly kind: string;
}

/** Jobs a run asks to be queued: the runtime's own effect, applied after every feature's. */
export interface EnqueueEffect {
  readonly kind: 'enqueue';
  readonly jobs: readonly Job[];
}

export const enqueue = (jobs: readonly Job[]): EnqueueEffect => ({ kind: 'enqueue', jobs });

/**
 * What one job run produced: its next step and its effects, nothing stored yet. The batch's commit
 * applies the effects of the jobs it still holds, and only those.
 */
export interface JobResult {
  readonly job: Job;
  readonly next: NextStep;
  readonly effects: readonly Effect[];
}

/** What every handler gets besides its job: `batch` is what the composition loaded for the whole batch. */
export interface HandlerContext<B> {
  readonly ctx: EngineContext;
  readonly batch: B;
  readonly now: Date;
}

/** Runs one job of kind `K`: reads what it needs, calls providers, and says what to store. */
export type JobHandler<K extends JobKind, B> = (job: JobOf<K>, context: HandlerContext<B>) => Promise<JobResult>;

/** A job's result: its next step and what to store (nothing, when no effect is given). */
export const resultOf = (job: Job, next: NextStep, effects: readonly (Effect | null | undefined | false)[] = []): JobResult => ({
  job,
  next,
  effects: effects.filter((e): e is Effect => typeof e === 'object' && e !== null),
});

/** The job runs again at `runAt` with its data unchanged, its attempts reset (a wait, not a retry). */
export const waitUntil = (job: Job, runAt: Date): NextStep => ({ kind: 'later', runAt, data: job.data, retry: false, lastError: null });

/** An effect with the job whose run made it. */
export interface JobEffect<E extends Effect = Effect> {
  readonly job: Job;
  readonly effect: E;
}

/** What an applier may do besides writing through `tx`. */
export interface CommitScope {
  readonly tx: StorageRepositories;
  readonly now: Date;
  /** Adds an effect of `job`'s run, applied by the appliers that come after the one adding it. */
  add(job: Job, effect: Effect): void;
  /** Runs once the transaction has committed (events for the app's listeners); never when it is undone. */
  afterCommit(announce: () => void): void;
}

/** How a feature's effects are applied inside the commit: every effect of `kinds` of the batch, in job order. */
export interface EffectApplier {
  readonly kinds: readonly string[];
  apply(effects: readonly JobEffect[], scope: CommitScope): Promise<void>;
}

/** An applier of the effects `E` (the commit hands it only effects of its kinds). */
export function effectApplier<E extends Effect>(kinds: readonly E['kind'][], apply: (effects: readonly JobEffect<E>[], scope: CommitScope) => Promise<void>): EffectApplier {
  return { kinds, apply: apply as EffectApplier['apply'] };
}

/** The effects of one kind in a list of job effects. */
export const ofKind = <E extends Effect>(effects: readonly JobEffect[], kind: E['kind']): JobEffect<E>[] => effects.filter((e): e is JobEffect<E> => e.effect.kind === kind);
