import type { Provider, Storage } from '@tidings/core';

/** Where one process's time went while it sent: summed over overlapping work, so read against `wallMs`. */
export interface SendTiming {
  readonly wallMs: number;
  /** CPU the process used (user + system): the engine's own work (render, walk, build, HTTP client, driver). */
  readonly cpuMs: number;
  /** Provider calls and their summed duration as the engine saw it (the 50 ms, the HTTP round trip, queueing). */
  readonly sends: number;
  readonly sendMs: number;
  /** Most provider calls this process had in flight at once. */
  readonly maxSendsInFlight: number;
  /** Job claims and their summed duration. */
  readonly claims: number;
  readonly claimMs: number;
  /** Transactions (the batches' commits, and any other) and their summed duration. */
  readonly commits: number;
  readonly commitMs: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Watches one process's send path: wraps the provider and the storage's `transaction` and
 * `jobs.claimDue` (in place, before the engine is made) and counts their time. `start` begins the
 * measured span; `read` returns what it counted since.
 */
export function sendTiming() {
  const t: Mutable<Omit<SendTiming, 'wallMs' | 'cpuMs'>> = { sends: 0, sendMs: 0, maxSendsInFlight: 0, claims: 0, claimMs: 0, commits: 0, commitMs: 0 };
  let inFlight = 0;
  let started = performance.now();
  let cpu = process.cpuUsage();
  return {
    provider(inner: Provider): Provider {
      return {
        ...inner,
        async send(message, credentials, context) {
          const at = performance.now();
          inFlight++;
          if (inFlight > t.maxSendsInFlight) t.maxSendsInFlight = inFlight;
          try {
            return await inner.send(message, credentials, context);
          } finally {
            inFlight--;
            t.sends++;
            t.sendMs += performance.now() - at;
          }
        },
      };
    },
    storage<S extends Storage>(storage: S): S {
      const transaction = storage.transaction.bind(storage);
      const claimDue = storage.jobs.claimDue.bind(storage.jobs);
      const timed = async <T>(count: 'commits' | 'claims', work: () => Promise<T>): Promise<T> => {
        const at = performance.now();
        try {
          return await work();
        } finally {
          if (count === 'commits') (t.commits++, (t.commitMs += performance.now() - at));
          else (t.claims++, (t.claimMs += performance.now() - at));
        }
      };
      (storage as { transaction: Storage['transaction'] }).transaction = (fn) => timed('commits', () => transaction(fn));
      (storage.jobs as { claimDue: Storage['jobs']['claimDue'] }).claimDue = (options) => timed('claims', () => claimDue(options));
      return storage;
    },
    start() {
      started = performance.now();
      cpu = process.cpuUsage();
      Object.assign(t, { sends: 0, sendMs: 0, maxSendsInFlight: inFlight, claims: 0, claimMs: 0, commits: 0, commitMs: 0 });
    },
    read(): SendTiming {
      const used = process.cpuUsage(cpu);
      return { ...t, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
    },
  };
}

/** One line of where the time went, for the log and the docs. */
export function describeTiming(who: string, t: SendTiming): string {
  const pct = (ms: number) => `${((ms / t.wallMs) * 100).toFixed(0)}%`;
  return (
    `${who}: ${(t.wallMs / 1000).toFixed(1)} s; CPU ${pct(t.cpuMs)} of it; ` +
    `${t.sends.toLocaleString('en')} provider calls of ${(t.sendMs / Math.max(1, t.sends)).toFixed(0)} ms on average, ${t.maxSendsInFlight} at most in flight; ` +
    `${t.claims.toLocaleString('en')} claims of ${(t.claimMs / Math.max(1, t.claims)).toFixed(1)} ms; ` +
    `${t.commits.toLocaleString('en')} transactions of ${(t.commitMs / Math.max(1, t.commits)).toFixed(1)} ms (${pct(t.commitMs)} of the wall summed)`
  );
}
