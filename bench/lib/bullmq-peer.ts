import { Queue, Worker, createPostgresBackend, withBackend } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { messageDocument, orderedIds, subscriberDocument } from './documents.js';

/**
 * The pipeline a team builds instead of an engine, built as Novu builds its own and with none of its
 * logic: the trigger call enqueues one BullMQ job per (event, recipient); BullMQ workers in this
 * process take them one at a time and, for each, upsert the subscriber and insert the in-app message
 * into Postgres (two statements, as a queue worker writes), with the engine's documents and a feed
 * index. The queue lives in Redis, or (BullMQ 6) in Postgres itself.
 */
export const PEER_CONCURRENCY = 16;

export interface PeerOptions {
  readonly pgUrl: string;
  readonly schema: string;
  readonly queue: 'redis' | 'postgres';
  readonly redisUrl?: string;
}

interface PeerJob {
  readonly subscriberId: string;
  readonly n: number;
  readonly notificationId: string;
  readonly internalId: string;
}

/** The parts of a BullMQ queue and worker the peer uses, whichever store holds the queue. */
interface PeerQueue {
  waitUntilReady(): Promise<unknown>;
  addBulk(jobs: { name: string; data: PeerJob }[]): Promise<unknown>;
  obliterate(options: { force: boolean }): Promise<void>;
  close(): Promise<void>;
}
interface PeerWorker {
  on(event: 'completed', listener: () => void): unknown;
  on(event: 'failed', listener: (job: unknown, error: Error) => void): unknown;
  waitUntilReady(): Promise<unknown>;
  close(): Promise<void>;
}
type Processor = (job: { data: PeerJob }) => Promise<void>;

/** BullMQ's queue and worker on Redis, or on Postgres (its version 6 backend), for one queue name. */
function bullmqOn(options: PeerOptions, name: string, connect: () => Redis): { queue: (jobOptions: object) => PeerQueue; worker: (process: Processor, concurrency: number) => PeerWorker } {
  if (options.queue === 'redis') {
    return {
      queue: (defaultJobOptions) => new Queue<PeerJob>(name, { connection: connect(), defaultJobOptions }),
      worker: (process, concurrency) => new Worker<PeerJob>(name, process, { concurrency, connection: connect() }),
    };
  }
  const onPostgres = withBackend(createPostgresBackend);
  const connection = (max: number) => ({ connectionString: options.pgUrl, schema: `${options.schema}_queue`, max, migrate: true });
  return {
    queue: (defaultJobOptions) => new onPostgres.Queue<PeerJob>(name, { connection: connection(4), defaultJobOptions }),
    worker: (process, concurrency) => new onPostgres.Worker<PeerJob>(name, process, { concurrency, connection: connection(concurrency) }),
  };
}

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Null when Redis answers PING within a second, else why not (the rows are skipped with it). */
export async function redisProblem(url: string): Promise<string | null> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    client.disconnect();
  }
}

export async function bullmqPeer(options: PeerOptions) {
  const pool = new pg.Pool({ connectionString: options.pgUrl, max: PEER_CONCURRENCY });
  const tables = `"${options.schema}".`;
  await pool.query(`create schema if not exists "${options.schema}"`);
  await pool.query(`create table ${tables}subscribers (subscriber_id text primary key, doc jsonb not null)`);
  await pool.query(`create table ${tables}messages (id text primary key, subscriber_id text not null, created_at text not null, doc jsonb not null)`);
  await pool.query(`create index messages_feed on ${tables}messages (subscriber_id, created_at desc, id desc)`);

  const name = `peer-${options.schema}`;
  const connections: Redis[] = [];
  const bullmq = bullmqOn(options, name, () => {
    const connection = new Redis(options.redisUrl ?? DEFAULT_REDIS_URL, { maxRetriesPerRequest: null });
    connections.push(connection);
    return connection;
  });
  const queue = bullmq.queue({ removeOnComplete: true, removeOnFail: 1_000 });
  await queue.waitUntilReady();

  let stored = 0;
  let failed: Error | null = null;
  let waiters: { count: number; resolve: () => void }[] = [];
  const process = async (job: { data: PeerJob }) => {
    const { subscriberId, n, notificationId, internalId } = job.data;
    const now = new Date().toISOString();
    await pool.query(`insert into ${tables}subscribers values ($1, $2) on conflict (subscriber_id) do update set doc = excluded.doc`, [subscriberId, subscriberDocument(subscriberId, internalId, n, now)]);
    await pool.query(`insert into ${tables}messages values ($1, $2, $3, $4)`, [`${notificationId}000${internalId}`, subscriberId, now, messageDocument(notificationId, subscriberId, n, now)]);
  };
  const worker = bullmq.worker(process, PEER_CONCURRENCY);
  worker.on('completed', () => {
    stored++;
    waiters = waiters.filter((w) => (stored >= w.count ? (w.resolve(), false) : true));
  });
  worker.on('failed', (_job, error) => (failed ??= error));
  await worker.waitUntilReady();

  const ids = orderedIds();
  let n = 0;
  return {
    /** The trigger call: 100 events to `perEvent` new subscribers each, enqueued as one job per recipient. */
    async call(perEvent: number) {
      const jobs: { name: string; data: PeerJob }[] = [];
      for (let e = 0; e < 100; e++) {
        n++;
        const notificationId = ids.id();
        for (let k = 0; k < perEvent; k++) jobs.push({ name: 'in_app', data: { subscriberId: `p-${n}-${k}`, n, notificationId, internalId: ids.id() } });
      }
      await queue.addBulk(jobs);
      return jobs.length;
    },
    /** Resolves once `count` messages in all have been stored. */
    stored(count: number): Promise<void> {
      if (failed) return Promise.reject(failed);
      if (stored >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      await worker.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      for (const connection of connections) connection.disconnect();
      await pool.query(`drop schema if exists "${options.schema}" cascade`);
      if (options.queue === 'postgres') await pool.query(`drop schema if exists "${options.schema}_queue" cascade`);
      await pool.end();
    },
  };
}
