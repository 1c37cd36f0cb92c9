import { createSqlStorage, type Database, type SqlStorage } from '@tidings/sql';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { JOBS_CHANNEL, MIGRATION_LOCK, postgresDialect } from './postgres-dialect.js';

export type PostgresStorageOptions = (
  | {
      /** `postgres://user@host:5432/db`; the storage opens and closes its own pool. */
      connectionString: string;
      pool?: never;
      /** Connections in the pool. @default 10 */
      max?: number;
    }
  | {
      /** The app's own pg Pool; Tidings never ends it. */
      pool: pg.Pool;
      connectionString?: never;
    }
) & {
  /** A schema to keep Tidings' tables in; created when missing and put first on the search path. */
  schema?: string;
  /** Apply pending migrations before the first operation. @default true */
  migrate?: boolean;
};

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `create schema if not exists` races with itself across processes, so it runs under the migration lock. */
async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
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
  const schemaOption = options.schema ? `-c search_path=${quoteIdent(options.schema)},public` : undefined;
  const pool =
    options.pool ??
    new pg.Pool({ connectionString: options.connectionString, max: options.max ?? 10, ...(schemaOption && { options: schemaOption }) });
  if (!own && options.schema) {
    pool.on('connect', (client) => void client.query(`set search_path to ${quoteIdent(options.schema!)}, public`));
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const storage = createSqlStorage({
    db,
    dialect: postgresDialect,
    durable: true,
    ...(options.migrate !== undefined && { migrate: options.migrate }),
    ...(options.schema && { beforeMigrate: () => createSchema(pool, options.schema!) }),
    async close() {
      await stopListening();
      if (own) await db.destroy();
    },
  });

  const listeners = new Set<(env: string) => void>();
  let listener: pg.PoolClient | null = null;
  let connecting: Promise<void> | null = null;
  async function startListening() {
    const client = await pool.connect();
    client.on('notification', (message) => {
      if (message.channel === JOBS_CHANNEL) for (const fn of listeners) fn(message.payload ?? '');
    });
    client.on('error', () => {
      listener = null;
      connecting = null;
    });
    await client.query(`listen ${JOBS_CHANNEL}`);
    listener = client;
  }
  async function stopListening() {
    await connecting?.catch(() => undefined);
    const client = listener;
    listener = null;
    connecting = null;
    if (client) {
      await client.query(`unlisten ${JOBS_CHANNEL}`).catch(() => undefined);
      client.release();
    }
  }

  storage.subscribeJobs = (fn) => {
    listeners.add(fn);
    if (!listener && !connecting) connecting = startListening().catch(() => {
      connecting = null;
    });
    return () => {
      listeners.delete(fn);
      if (listeners.size === 0) void stopListening();
    };
  };
  return storage;
}
