import { fileURLToPath } from 'node:url';
import type { postgresStorage } from '@tidings/postgres';
import { spawnTs, waitForOutput } from '../../test-support/spawn-ts.js';

const WORKER = fileURLToPath(new URL('../workloads/pg-loop-worker.ts', import.meta.url));

/** `count` worker processes running their job loops on the schema; resolves once all are ready. */
export async function startLoopWorkers(pgUrl: string, schema: string, count: number) {
  const workers = Array.from({ length: count }, () => spawnTs(WORKER, [pgUrl, schema]));
  const stop = async () => {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  };
  try {
    await Promise.all(workers.map((w) => waitForOutput(w, 'READY', 60_000)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}

/** Rows in one of the engine's tables, read past the engine. */
export async function rowCount(storage: ReturnType<typeof postgresStorage>, table: 'tidings_jobs' | 'tidings_messages'): Promise<number> {
  return Number((await storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}
