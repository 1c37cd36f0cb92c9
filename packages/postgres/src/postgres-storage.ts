import type { LiveNotice, LiveRelay } from '@tidings/core/internal';
import { createSqlStorage, type Database, type SqlStorage } from '@tidings/sql';
import { Kysely, type PostgresPool } from 'kysely';
import pg from 'pg';
import type { PgPool, PgPoolClient } from './pg-handle.js';
import { channelsOf, MIGRATION_LOCK, postgresDialectOn } from './postgres-dialect.js';
import { scanlessPostgresDialect } from './scanless-driver.js';

export type PostgresStorageOptions = (
  | {
      /** `postgres://user@host:5432/db`; the storage opens and closes its own pool. */
      connectionString: string;
      pool?: never;
      /** Connections in the pool. @default 10 */
      max?: number;
      /** How long opening a connection may take. @default 5_000 */
      connectTimeoutMs?: number;
      /**
       * How long one statement may run, enforced by the server (`statement_timeout`) and, a few
       * seconds later, by the client, so a server that stops answering (a network cut) fails the
       * query instead of hanging it. @default 30_000
       */
      statementTimeoutMs?: number;
      /** How long a transaction may sit idle before the server ends it. @default 60_000 */
      idleInTransactionTimeoutMs?: number;
      /** Shown in `pg_stat_activity`, to tell Tidings' connections apart. @default 'tidings' */
      applicationName?: string;
    }
  | {
      /** The app's own pg Pool; Tidings never ends it. */
      pool: PgPool;
      connectionString?: never;
    }
) & {
  /**
   * A schema to keep Tidings' tables in; created when missing. Every statement names it, so the
   * connections' search path (the app's pool's included) is left as it is.
   */
  schema?: string;
  /** Apply pending migrations before the first operation. @default true */
  migrate?: boolean;
  /**
   * Called with connection errors that no query is waiting for (an idle connection dropped by a
   * restart, a failover, `pg_terminate_backend`, a network cut). The pool replaces the connection and
   * the process keeps serving. @default one line on console.warn
   */
  onConnectionError?: (error: Error) => void;
};

/** NOTIFY payloads are capped at 8,000 bytes; notices are packed below that. */
const PAYLOAD_BYTES = 7_500;

/** The relayed notices of one payload (a JSON list of `[env, subscriberId, messageId, kind]`); ones this version cannot read are left out. */
function liveNoticesOf(payload: string | undefined): LiveNotice[] {
  let rows: unknown;
  try {
    rows = JSON.parse(payload ?? '');
  } catch {
    return [];
  }
  if (!Array.isArray(rows)) return [];
  return rows.flatMap((row): LiveNotice[] => {
    if (!Array.isArray(row)) return [];
    const [env, subscriberId, messageId, kind] = row as unknown[];
    if (typeof env !== 'string' || typeof subscriberId !== 'string' || typeof messageId !== 'string' || (kind !== 'created' && kind !== 'changed')) return [];
    return [{ env, subscriberId, messageId, kind }];
  });
}

/**
 * Publishes notices in batches: those of one tick (a bulk trigger makes hundreds) go out together, as
 * few NOTIFYs of ids only as the payload cap allows, over one connection.
 */
function relayPublisher(pool: PgPool, channel: string): (notice: LiveNotice) => Promise<void> {
  let pending: { row: string; done: () => void; failed: (error: unknown) => void }[] = [];
  async function flush() {
    const batch = pending;
    pending = [];
    const payloads: string[] = [];
    let current: string[] = [];
    let size = 2;
    for (const { row } of batch) {
      if (current.length > 0 && size + row.length + 1 > PAYLOAD_BYTES) {
        payloads.push(`[${current.join(',')}]`);
        current = [];
        size = 2;
      }
      current.push(row);
      size += row.length + 1;
    }
    if (current.length > 0) payloads.push(`[${current.join(',')}]`);
    try {
      const client = await pool.connect();
      try {
        // Every payload of the tick in one round trip.
        await client.query('select pg_notify($1, payload) from unnest($2::text[]) as payload', [channel, payloads]);
      } finally {
        client.release();
      }
      for (const entry of batch) entry.done();
    } catch (error) {
      for (const entry of batch) entry.failed(error);
    }
  }
  return (notice) =>
    new Promise<void>((done, failed) => {
      if (pending.length === 0) setImmediate(() => void flush());
      pending.push({ row: JSON.stringify([notice.env, notice.subscriberId, notice.messageId, notice.kind]), done, failed });
    });
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `create schema if not exists` races with itself across processes, so it runs under the migration lock. */
async function createSchema(pool: PgPool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`create schema if not exists ${quoteIdent(schema)}`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Storage in PostgreSQL, for apps that run many processes: jobs are claimed with
 * `FOR UPDATE SKIP LOCKED` leases, transactions are serializable, and LISTEN/NOTIFY wakes idle
 * job loops in every process when jobs are enqueued.
 */
export function postgresStorage(options: PostgresStorageOptions): SqlStorage {
  const own = options.pool === undefined;
  const onConnectionError = options.onConnectionError ?? ((error: Error) => console.warn(`[tidings postgres] connection lost: ${error.message}`));
  const pool = options.pool ?? ownPool(options);
  // Without a listener, an idle connection's error (a server restart, pg_terminate_backend) is an
  // uncaught 'error' event that ends the process.
  pool.on('error', onConnectionError);
  // A connection checked out of the pool (held between a transaction's statements) reports its loss
  // on the client itself; the statement waiting on it fails on its own, and the error is handled here.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  const db = new Kysely<Database>({ dialect: scanlessPostgresDialect({ pool: pool as unknown as PostgresPool }) });
  const channels = channelsOf(options.schema);
  const storage = createSqlStorage({
    db,
    dialect: postgresDialectOn(channels),
    durable: true,
    ...(options.schema && { schema: options.schema }),
    ...(options.migrate !== undefined && { migrate: options.migrate }),
    ...(options.schema && { beforeMigrate: () => createSchema(pool, options.schema!) }),
    async close() {
      await stopListening();
      if (own) await db.destroy();
    },
  });

  // LISTEN holds one connection of its own, for the job wake-ups and the live relay; when it drops,
  // it is opened again with backoff, and the job listeners are woken once (jobs may have been
  // enqueued while it was away).
  const listeners = new Set<(env: string) => void>();
  const liveListeners = new Set<(notice: LiveNotice) => void>();
  const gapListeners = new Set<() => void>();
  const wanted = () => listeners.size > 0 || liveListeners.size > 0;
  let listener: PgPoolClient | null = null;
  let connecting: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let failures = 0;
  const heard: (() => void)[] = [];
  // A LISTEN connection can fail while it is being stopped (its error and the stop both let it go):
  // it goes back to the pool once.
  const released = new WeakSet<PgPoolClient>();
  const release = (client: PgPoolClient, error?: Error) => {
    if (released.has(client)) return;
    released.add(client);
    client.release(error);
  };
  async function startListening() {
    const client = await pool.connect();
    // The pool hands out its client objects again.
    released.delete(client);
    client.on('notification', (message) => {
      if (message.channel === channels.jobs) for (const fn of listeners) fn(message.payload ?? '');
      else if (message.channel === channels.live) {
        for (const notice of liveNoticesOf(message.payload)) for (const fn of liveListeners) fn(notice);
      }
    });
    client.on('error', (error) => {
      onConnectionError(error);
      if (listener === client) listener = null;
      release(client, error);
      scheduleListen();
    });
    try {
      await client.query(`listen ${channels.jobs}`);
      await client.query(`listen ${channels.live}`);
    } catch (error) {
      release(client, error as Error);
      throw error;
    }
    listener = client;
    for (const resolve of heard.splice(0)) resolve();
    // Jobs enqueued before it listened (a loop's first look may have come just before them, or the
    // connection was away) were heard by no one: wake the job loops once. After an outage, live
    // listeners re-read too.
    for (const fn of listeners) fn('*');
    if (failures > 0) for (const fn of gapListeners) fn();
    failures = 0;
  }
  function listen() {
    if (listener || connecting || !wanted()) return;
    connecting = startListening()
      .catch(() => {
        failures++;
        scheduleListen();
      })
      .finally(() => {
        connecting = null;
      });
  }
  function scheduleListen() {
    if (retry || !wanted()) return;
    failures = Math.max(failures, 1);
    retry = setTimeout(() => {
      retry = null;
      listen();
    }, Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
    retry.unref();
  }
  async function stopListening() {
    if (retry) clearTimeout(retry);
    retry = null;
    await connecting?.catch(() => undefined);
    for (const resolve of heard.splice(0)) resolve();
    const client = listener;
    listener = null;
    if (client) {
      await client.query('unlisten *').catch(() => undefined);
      release(client);
    }
  }
  const subscribe = <T>(set: Set<T>, fn: T) => {
    set.add(fn);
    listen();
    return () => {
      set.delete(fn);
      if (!wanted()) void stopListening();
    };
  };

  storage.subscribeJobs = (fn) => subscribe(listeners, fn);
  (storage as { live?: LiveRelay }).live = {
    publish: relayPublisher(pool, channels.live),
    subscribe(fn, onGap) {
      const unsubscribe = subscribe(liveListeners, fn);
      if (onGap) gapListeners.add(onGap);
      return () => {
        if (onGap) gapListeners.delete(onGap);
        unsubscribe();
      };
    },
    listening: () => (listener ? Promise.resolve() : new Promise<void>((resolve) => heard.push(resolve))),
  };
  return storage;
}

/** The storage's own pool, with timeouts so a database that stops answering fails calls instead of hanging them. */
function ownPool(options: Extract<PostgresStorageOptions, { connectionString: string }>): PgPool {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: options.applicationName ?? 'tidings',
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 5_000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
  });
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  // pg says "timeout exceeded when trying to connect"; say where, and which setting bounds it.
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = () =>
    connect().catch((error: Error) => {
      if (/timeout exceeded when trying to connect/i.test(error.message)) {
        throw new Error(`Postgres at ${postgresAddress(options.connectionString) ?? 'the configured address'} did not accept a connection within ${connectTimeoutMs} ms (connectTimeoutMs)`, { cause: error });
      }
      throw error;
    });
  return pool as unknown as PgPool;
}

/** `host:port` of a connection URL (for messages that say which database), or null when it is not a URL. */
export function postgresAddress(connectionString: string): string | null {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || '5432'}`;
  } catch {
    return null;
  }
}
