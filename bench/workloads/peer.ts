import { join } from 'node:path';
import type { Storage } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { bullmqPeer, DEFAULT_REDIS_URL, PEER_CONCURRENCY, redisProblem, type PeerOptions } from '../lib/bullmq-peer.js';
import { engineBulk } from '../lib/engine-bulk.js';
import { repeat } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

type Measured = Awaited<ReturnType<typeof repeat>>;

/** The peer end to end: `calls` trigger calls enqueued back to back, timed until every message is stored. */
async function peerRate(ctx: BenchContext, options: Omit<PeerOptions, 'schema'>, calls: number, perEvent: number): Promise<Measured> {
  const peer = await bullmqPeer({ ...options, schema: freshName('peer') });
  let total = 0;
  try {
    return await repeat(ctx.runs, 1, async () => {
      const started = performance.now();
      for (let c = 0; c < calls; c++) total += await peer.call(perEvent);
      await peer.stored(total);
      return (calls * 100 * perEvent) / ((performance.now() - started) / 1000);
    });
  } finally {
    await peer.close();
  }
}

/** Tidings end to end with no options at all, as `createTidings({ storage })` runs. */
async function tidingsRate(ctx: BenchContext, storage: () => Storage, calls: number, perEvent: number): Promise<Measured> {
  const store = storage();
  try {
    return await repeat(ctx.runs, 1, async (run) => {
      const { messages, seconds } = await engineBulk(store, { calls, perEvent, prefix: `peer${run}`, engine: {} });
      return messages / seconds;
    });
  } finally {
    await store.close();
  }
}

const row = (workload: string, backend: string, batch: number, m: Measured, extra: Partial<Row> = {}): Row => ({ workload, backend, batch, unit: 'messages/s', value: m.median, spread: m.spread, runs: m.runs, ...extra });

/**
 * Tidings against the pipeline teams build instead (see lib/bullmq-peer.ts), on the bulk workload:
 * 100 events per call, 1 and 10 new subscribers per event, one in-app message each, until every
 * message is stored. Tidings runs with its defaults on SQLite and on Postgres.
 */
export async function peerWorkload(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.pgUrl) {
    ctx.log('  skipped: the peer writes to Postgres; set TIDINGS_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
    return [];
  }
  const pgUrl = ctx.pgUrl;
  const redisUrl = process.env['TIDINGS_BENCH_REDIS_URL'] ?? DEFAULT_REDIS_URL;
  const noRedis = await redisProblem(redisUrl);
  if (noRedis) ctx.log(`  BullMQ on Redis skipped (${noRedis}): start Redis on 127.0.0.1:6379 or set TIDINGS_BENCH_REDIS_URL to measure it`);
  const dir = tempDir('peer');
  const rows: Row[] = [];
  // The quick run (the test suite's) checks that every part works, on the smaller size only.
  for (const perEvent of ctx.quick ? [1] : [1, 10]) {
    const calls = Math.max(2, Math.round((ctx.quick ? 4 : 40) / perEvent));
    const label = `100 events × ${perEvent} subscriber${perEvent > 1 ? 's' : ''}`;
    const redis = noRedis ? null : await peerRate(ctx, { pgUrl, queue: 'redis', redisUrl }, calls, perEvent);
    const pgQueue = await peerRate(ctx, { pgUrl, queue: 'postgres' }, calls, perEvent);
    const sqlite = await tidingsRate(ctx, () => sqliteStorage({ filename: join(dir, `${freshName('peer')}.db`) }), calls, perEvent);
    const postgres = await tidingsRate(ctx, () => postgresStorage({ connectionString: pgUrl, schema: freshName('peer_tidings') }), calls, perEvent);
    // The peer the targets name is BullMQ on Redis; without Redis, its Postgres queue stands in.
    const peer = redis ?? pgQueue;
    const versus = `the peer (BullMQ on ${redis ? 'Redis' : 'Postgres'})`;
    if (redis) rows.push(row(`peer: BullMQ 6 on Redis, ${PEER_CONCURRENCY} workers writing to Postgres, ${label}`, 'peer (redis)', perEvent, redis));
    rows.push(row(`peer: BullMQ 6 with its queue in Postgres, ${PEER_CONCURRENCY} workers writing to Postgres, ${label}`, 'peer (postgres queue)', perEvent, pgQueue));
    rows.push(row(`Tidings, SQLite, default options, ${label}`, 'sqlite (default)', perEvent, sqlite, { ratio: sqlite.median / peer.median, versus, target: '≥ 6× the peer', met: sqlite.median >= 6 * peer.median }));
    rows.push(row(`Tidings, Postgres, default options, ${label}`, 'postgres (default)', perEvent, postgres, { ratio: postgres.median / peer.median, versus, target: '≥ 2× the peer', met: postgres.median >= 2 * peer.median }));
    ctx.log(`  ${label}: peer Redis ${redis ? Math.round(redis.median) : 'skipped'}, peer Postgres queue ${Math.round(pgQueue.median)}, Tidings SQLite ${Math.round(sqlite.median)}, Tidings Postgres ${Math.round(postgres.median)} messages/s`);
  }
  return rows;
}
