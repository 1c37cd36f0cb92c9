import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints of the WAL, off the main thread. SQLite's automatic checkpoint runs inside the commit
 * that crosses its threshold: that commit copies the log into the database file and syncs it, which
 * measured as most of the time a bulk trigger spends committing. Here the storage's own connection
 * checkpoints only as a safety net (SAFETY_NET_PAGES, should this thread fall behind), and a worker
 * thread with a connection of its own runs PASSIVE checkpoints (which never block readers or the
 * writer) while writes go on: one after another as long as transactions keep committing, none when
 * the storage is idle (but for the retry below). A crash loses nothing: the WAL is the durable log, replayed on the next open.
 *
 * A reader holding an old snapshot (another process's read transaction) keeps a checkpoint from
 * copying the frames written since, and the log grows as long as it reads. So once a PASSIVE
 * checkpoint has copied every frame and the file is larger than `walSizeLimitBytes`, the thread
 * truncates it (a TRUNCATE checkpoint that waits for no one: it gives up at once while a reader or
 * the writer is busy). A checkpoint held back so is tried again after RETRY_AFTER_MS, writes or not,
 * so the log shrinks soon after the reader leaves even when the app has gone idle.
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
/** How long after a checkpoint that could not copy every frame (a reader held it back) it is tried again. */
export const RETRY_AFTER_MS = 1_000;

const WORKER_SOURCE = `
const { statSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('journal_size_limit = ' + workerData.walSizeLimitBytes);
const walSize = () => statSync(workerData.filename + '-wal', { throwIfNoEntry: false })?.size ?? 0;
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    process.exit(0);
  }
  // Whether the log is all in the database file, and no larger than the limit (false: try again soon).
  let done = true;
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    done = passive.busy === 0 && passive.log === passive.checkpointed;
    if (done && walSize() > workerData.walSizeLimitBytes) {
      // Waiting here would hold the writer lock while readers finish: give up at once instead.
      db.pragma('busy_timeout = 0');
      try {
        done = db.pragma('wal_checkpoint(TRUNCATE)')[0].busy === 0;
      } finally {
        db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
      }
    }
  } catch {
    // A checkpoint that failed runs at the next request, or in a commit past the safety net.
  }
  parentPort.postMessage(done);
});
`;

export function walCheckpointer(filename: string, busyTimeoutMs: number, walSizeLimitBytes: number): Checkpointer {
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let commits = 0;
  let running = false;
  let again = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const request = () => {
    if (retry) clearTimeout(retry);
    retry = null;
    running = true;
    again = false;
    worker!.postMessage('checkpoint');
  };

  function start(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, filename, busyTimeoutMs, walSizeLimitBytes } });
    started.unref();
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    started.on('message', (done: boolean) => {
      running = false;
      if (closed) return;
      if (again) request();
      else if (!done) {
        retry = setTimeout(() => {
          retry = null;
          if (!closed && !running) request();
        }, RETRY_AFTER_MS);
        retry.unref();
      }
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
      if (retry) clearTimeout(retry);
      // The thread does not keep the app alive, but closing waits for it to let go of the file.
      worker?.ref();
      worker?.postMessage('close');
      await exited;
    },
  };
}
