import { laneTakesAny } from '../../storage.js';
import type { EngineContext } from '../context.js';
import type { JobRunner } from './job-runner.js';

export interface JobLoop {
  start(): void;
  /**
   * Stops claiming new jobs and resolves once the batch in flight has committed: jobs still due stay
   * unclaimed for other processes, or for the next start.
   */
  stop(): Promise<void>;
  readonly running: boolean;
}

/**
 * Runs due jobs until stopped. Between runs it sleeps until the earliest job becomes due (never past
 * `maxIdleMs`, in case another process enqueued one) and wakes at once when jobs are enqueued here or,
 * on storages that report it, by another process.
 */
export function createJobLoop(ctx: EngineContext, runner: JobRunner, onError: (error: unknown) => void): JobLoop {
  let running = false;
  let current: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let poked = false;
  let unsubscribe: (() => void) | null = null;

  const poke = () => {
    poked = true;
    wake?.();
  };
  // Jobs of other lanes wake their own loops, not this one.
  ctx.events.on('jobs.enqueued', ({ kinds }) => laneTakesAny(runner.lane, kinds) && poke());

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  async function loop(): Promise<void> {
    let failures = 0;
    while (running) {
      poked = false;
      let ran = 0;
      try {
        ran = await runner.runDue(() => running);
        failures = 0;
      } catch (error) {
        onError(error);
        failures++;
      }
      if (!running) break;
      // A storage that keeps failing (a database outage) is retried with backoff, not in a tight loop.
      if (failures > 0) {
        await sleep(Math.min(ctx.options.maxIdleMs, 50 * 2 ** Math.min(failures, 10)));
        continue;
      }
      // Jobs ran: claim again at once (a claim is the cheapest way to learn whether more are due).
      if (poked || ran > 0) continue;
      let wait = ctx.options.maxIdleMs;
      try {
        const next = await ctx.storage.jobs.nextDueAt(ctx.env, runner.lane);
        if (next !== null) wait = Math.min(wait, Math.max(Date.parse(next) - ctx.clock.now().getTime(), ran === 0 ? 25 : 0));
      } catch (error) {
        onError(error);
      }
      if (running && !poked) await sleep(wait);
    }
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      // Storages shared by several processes tell us when another process enqueued jobs.
      unsubscribe = ctx.storage.subscribeJobs?.((env) => (env === ctx.env || env === '*') && poke()) ?? null;
      current = loop();
    },
    async stop() {
      running = false;
      unsubscribe?.();
      unsubscribe = null;
      wake?.();
      await current;
      current = null;
    },
  };
}
