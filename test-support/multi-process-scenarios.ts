import { createTidings, type Storage } from '@tidings/core';
import type { SqlStorage } from '@tidings/sql';
import { expect } from 'vitest';
import { spawnTs, waitForOutput } from './spawn-ts.js';

type SpawnedTs = ReturnType<typeof spawnTs>;

/**
 * The scenarios every multi-process SQL backend runs (Postgres, MySQL), each over its own fresh
 * database and worker fixture. What they drain: a workflow of in-app steps around a delay
 * and a digest, triggered for `subscribers` subscribers (three messages each), through jobs only.
 */
export async function seedTwoStep<S extends Storage>(storage: S, subscribers: number) {
  const tidings = createTidings({ storage, inlineInApp: false });
  await tidings.workflows.upsert({
    name: 'two-step',
    triggers: [{ identifier: 'two-step' }],
    steps: [
      { template: { type: 'in_app', content: 'first {{ payload.i }}' } },
      { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
      { template: { type: 'in_app', content: 'second {{ payload.i }}' } },
      { template: { type: 'digest' }, metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
      { template: { type: 'in_app', content: 'digest {{ step.total_count }}' } },
    ],
  });
  for (let i = 0; i < subscribers; i += 100) {
    const results = await tidings.triggerBulk(Array.from({ length: Math.min(100, subscribers - i) }, (_, k) => ({ name: 'two-step', to: `u${i + k}`, payload: { i: i + k } })));
    expect(results.every((r) => r.status === 'processed')).toBe(true);
  }
  return { storage, tidings };
}

/** The stored messages' count once it reaches `expected`, or whatever it is after `timeoutMs`. */
export async function waitForMessages(storage: SqlStorage, expected: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const rows = await storage.db.selectFrom('tidings_messages').select((eb) => eb.fn.countAll().as('n')).execute();
    const n = Number(rows[0]!.n);
    if (n >= expected || Date.now() - started > timeoutMs) return n;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A SQL backend under the multi-process scenarios: its worker fixture, and a fresh database for one test. */
export interface MultiProcessBackend {
  /** The worker fixture (see test-support/job-worker.ts), from the repository root. */
  readonly worker: string;
  /** A fresh, empty database: the worker's arguments after its mode, and the storage over it. */
  fresh(): Promise<{ readonly args: readonly string[]; readonly open: () => SqlStorage }>;
  /** How long the scenarios wait for the workers to finish their work. */
  readonly waitMs: number;
}

/** A document column as stored: JSON text (SQLite, MySQL) or a JSON value (Postgres). */
const docOf = <T>(doc: unknown): T => (typeof doc === 'string' ? JSON.parse(doc) : doc) as T;

const stopAll = async (workers: readonly SpawnedTs[]) => {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
};

/** Two worker processes drain the same jobs (delays and digests included): every message exactly once, no job lost. */
export async function twoWorkersDrain(backend: MultiProcessBackend): Promise<void> {
  const { args, open } = await backend.fresh();
  const { storage } = await seedTwoStep(open(), 300);
  const workers = [spawnTs(backend.worker, ['work', ...args]), spawnTs(backend.worker, ['work', ...args])];
  await Promise.all(workers.map((w) => waitForOutput(w, 'READY')));
  expect(await waitForMessages(storage, 900, backend.waitMs)).toBe(900);
  await stopAll(workers);
  const perWorker = workers.map((w) => Number(/DONE (\d+)/.exec(w.output())?.[1] ?? NaN));
  expect(perWorker.reduce((a, b) => a + b, 0)).toBe(900);
  expect(perWorker.every((n) => n > 0)).toBe(true);
  const messages = await storage.db.selectFrom('tidings_messages').select(['subscriber_internal_id', 'doc']).execute();
  const content = (doc: unknown) => docOf<{ content: string }>(doc).content;
  expect(new Set(messages.map((m) => `${m.subscriber_internal_id}:${content(m.doc).split(' ')[0]}`)).size).toBe(900);
  expect(messages.filter((m) => content(m.doc) === 'digest 1')).toHaveLength(300);
  expect(await storage.digests.listOpen('default')).toEqual([]);
  expect(await storage.jobs.list('default')).toEqual([]);
  await storage.close();
}

/** A throttle across two worker processes: 200 runs racing against a limit of 5 let exactly 5 through. */
export async function throttleAcrossWorkers(backend: MultiProcessBackend): Promise<void> {
  const { args, open } = await backend.fresh();
  const storage = open();
  const tidings = createTidings({ storage, inlineInApp: false });
  await tidings.workflows.upsert({
    name: 'throttled',
    triggers: [{ identifier: 'throttled' }],
    steps: [{ template: { type: 'throttle' }, metadata: { amount: 1, unit: 'hours', limit: 5 } }, { template: { type: 'in_app', content: 'through {{ payload.i }}' } }],
  });
  for (let i = 0; i < 200; i += 100) await tidings.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: 'throttled', to: 'ada', payload: { i: i + k } })));
  const workers = [spawnTs(backend.worker, ['work', ...args]), spawnTs(backend.worker, ['work', ...args])];
  await Promise.all(workers.map((w) => waitForOutput(w, 'READY')));
  const started = Date.now();
  const walks = async () => (await tidings.pending({ subscriberId: 'ada' })).jobs;
  while ((await walks()).length > 0 && Date.now() - started < backend.waitMs) await new Promise((resolve) => setTimeout(resolve, 100));
  await stopAll(workers);
  expect(await walks()).toEqual([]);
  expect((await tidings.messages.counts('ada')).total).toBe(5);
  await storage.close();
}

/** A worker killed with SIGKILL holding leased jobs: another finishes them after the lease. */
export async function sigkillTakeover(backend: MultiProcessBackend): Promise<void> {
  const { args, open } = await backend.fresh();
  const { storage } = await seedTwoStep(open(), 40);
  const doomed = spawnTs(backend.worker, ['claim-and-die', ...args, '25']);
  await doomed.exited;
  expect(doomed.output()).toContain('CLAIMED 25');
  expect((await storage.jobs.list('default')).filter((j) => j.lockedBy === 'doomed')).toHaveLength(25);
  const survivor = spawnTs(backend.worker, ['work', ...args]);
  await waitForOutput(survivor, 'READY');
  expect(await waitForMessages(storage, 120, 30_000)).toBe(120);
  await stopAll([survivor]);
  expect(await storage.jobs.list('default')).toEqual([]);
  await storage.close();
}
