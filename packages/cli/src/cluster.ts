import cluster, { type Worker } from 'node:cluster';
import { checkDatabase, serve, serveCredentials, type ServeCredentials, type ServeOptions } from './serve.js';

/**
 * `tidings serve --processes N`: node's cluster module runs N copies of the server on one port (the
 * primary hands each connection to the next copy). Every copy is a whole server (HTTP, Inbox sockets,
 * job loop) on the same Postgres database; what they share lives there: jobs (claimed with SKIP
 * LOCKED leases), idempotency keys, digests, and the live relay (NOTIFY) that lets a client connected
 * to one copy hear what another delivered. The primary serves nothing itself: it checks the database
 * once, settles the API key, starts the copies, replaces one that dies, and stops them all on SIGTERM.
 */

/** What a copy tells the primary. */
type Report = { readonly type: 'ready'; readonly url: string } | { readonly type: 'failed'; readonly message: string };

/** The environment variable that carries a copy's options (and marks a process as a copy). */
const OPTIONS_VARIABLE = 'TIDINGS_SERVE_OPTIONS';

/** A copy that dies this many times in a row without coming up ends the whole server. */
const MAX_FAILED_STARTS = 3;

export interface ClusterEvents {
  /** Every copy listens; `credentials` as settled by the primary. */
  ready(url: string, pids: readonly number[], credentials: ServeCredentials): void;
  /** One line worth telling the operator (a copy died and was replaced). */
  notice(line: string): void;
}

export const isClusterCopy = () => cluster.isWorker && process.env[OPTIONS_VARIABLE] !== undefined;

/**
 * Runs the primary: resolves once every copy listens (after `events.ready`); rejects with the first
 * copy's start-up failure, having stopped the others. The `stop()` it resolves with sends each copy SIGTERM (each finishes
 * its requests and its batch of jobs, and closes its sockets) and resolves once all have exited,
 * true when every one exited cleanly within `boundMs`.
 */
export async function startCluster(options: ServeOptions, processes: number, events: ClusterEvents) {
  await checkDatabase(options);
  const credentials = serveCredentials(options);
  const copyOptions: ServeOptions = { ...options, apiKey: credentials.apiKey, applicationIdentifier: credentials.applicationIdentifier };
  const env = { [OPTIONS_VARIABLE]: JSON.stringify(copyOptions) };
  const copies = new Set<Worker>();
  let stopping = false;
  let failedStarts = 0;
  let settle: { resolve: (url: string) => void; reject: (error: Error) => void } | null = null;
  const waitingFor = new Set<Worker>();

  function fork(replacing?: number): void {
    const copy = cluster.fork(env);
    copies.add(copy);
    waitingFor.add(copy);
    copy.on('message', (report: Report) => {
      if (report.type === 'ready') {
        waitingFor.delete(copy);
        failedStarts = 0;
        if (replacing !== undefined) events.notice(`process ${copy.process.pid} serves in place of ${replacing}`);
        if (waitingFor.size === 0) settle?.resolve(report.url);
      } else if (report.type === 'failed') {
        waitingFor.delete(copy);
        failed(new Error(report.message));
      }
    });
    copy.on('exit', (code, signal) => {
      copies.delete(copy);
      const starting = waitingFor.delete(copy);
      if (stopping) return;
      if (starting) return failed(new Error(`a server process exited during start-up (${signal ?? `code ${code}`})`));
      events.notice(`process ${copy.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
      fork(copy.process.pid);
    });
  }

  function failed(error: Error) {
    if (settle) {
      // The first start: one failure is the answer, said once.
      const { reject } = settle;
      settle = null;
      void stopAll().then(() => reject(error));
      return;
    }
    if (++failedStarts >= MAX_FAILED_STARTS) {
      events.notice(`a replacement process failed to start ${MAX_FAILED_STARTS} times in a row (${error.message}); stopping`);
      void stopAll().then(() => process.exit(1));
    }
  }

  async function stopAll(boundMs = 12_000): Promise<boolean> {
    stopping = true;
    if (copies.size === 0) return true;
    let clean = true;
    const exits = [...copies].map((copy) => {
      // A copy still starting has nothing in flight: a signal that ends it before it could listen for
      // one is a clean stop too.
      const started = !waitingFor.has(copy);
      return new Promise<void>((resolve) => {
        copy.once('exit', (code) => {
          if (code !== 0 && started) clean = false;
          resolve();
        });
      });
    });
    for (const copy of copies) copy.process.kill('SIGTERM');
    const late = setTimeout(() => {
      clean = false;
      for (const copy of copies) copy.process.kill('SIGKILL');
    }, boundMs);
    await Promise.all(exits);
    clearTimeout(late);
    return clean;
  }

  const url = await new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
    for (let i = 0; i < processes; i++) fork();
  });
  settle = null;
  events.ready(url, [...copies].map((copy) => copy.process.pid!), credentials);
  return { stop: stopAll };
}

/**
 * Runs one copy: the options come from the primary. It reports when it listens (or why it could not),
 * and stops gracefully on SIGTERM, SIGINT, or when the primary is gone.
 */
export async function runClusterCopy(): Promise<void> {
  const options = JSON.parse(process.env[OPTIONS_VARIABLE]!) as ServeOptions;
  const report = (message: Report) => process.send?.(message);
  const starting = serve(options);
  // Signals are heard from the first moment: a copy told to stop while it starts stops once started.
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    const server = await starting.catch(() => null);
    await server?.close().catch((error: unknown) => console.error(`Tidings process ${process.pid}: ${error instanceof Error ? error.message : String(error)}`));
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.once('disconnect', shutdown);
  let server: Awaited<typeof starting>;
  try {
    server = await starting;
  } catch (error) {
    report({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
    process.removeAllListeners('disconnect');
    process.disconnect?.();
    return;
  }
  if (!stopping) report({ type: 'ready', url: server.url });
}
