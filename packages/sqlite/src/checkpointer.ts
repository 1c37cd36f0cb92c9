import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints of the WAL, off the main thread. SQLite's automatic checkpoint runs inside the commit
 * that crosses its threshold: that commit copies the log into the database file and syncs it, which
 * measured as most of the time a bulk trigger spends committing. Here the storage's own connection
 * checkpoints only as a safety net (SAFETY_NET_PAGES, should this thread fall behind), and a worker
 * thread with a connection of its own runs PASSIVE checkpoints (which never block readers or the
 * writer) while writes go on: one after another as long as transactions keep committing, none when
 * the storage is idle. A crash loses nothing: the WAL is the durable log, replayed on the next open.
 */
export interface Checkpointer {
  /** A transaction committed: the log grew. */
  written(): void;
  close(): Promise<void>;
}

/** Pages the storage's own connection lets the WAL hold before it checkpoints in a commit itself. */
export const SAFETY_NET_PAGES = 10_000;
/** Transactions committed before the first checkpoint is asked for, so a short-lived storage starts no thread. */
const FIRST_AFTER = 32;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    process.exit(0);
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A checkpoint that could not run now runs at the next request, or in a commit past the safety net.
  }
  parentPort.postMessage('done');
});
`;

export function walCheckpointer(filename: string, busyTimeoutMs: number): Checkpointer {
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let commits = 0;
  let running = false;
  let again = false;
  let closed = false;

  const request = () => {
    running = true;
    again = false;
    worker!.postMessage('checkpoint');
  };

  function start(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, filename, busyTimeoutMs } });
    started.unref();
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    started.on('message', () => {
      running = false;
      if (again && !closed) request();
    });
    // A worker that failed (the file went away) leaves checkpoints to the safety net.
    started.on('error', () => {
      closed = true;
    });
    return started;
  }

  return {
    written() {
      if (closed || ++commits < FIRST_AFTER) return;
      worker ??= start();
      if (running) again = true;
      else request();
    },
    async close() {
      closed = true;
      // The thread does not keep the app alive, but closing waits for it to let go of the file.
      worker?.ref();
      worker?.postMessage('close');
      await exited;
    },
  };
}
