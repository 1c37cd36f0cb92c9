import { createSqlStorage, type Database, type SqlStorage } from '@tidings/sql';
import { Kysely, MysqlDialect, type MysqlPool } from 'kysely';
import mysql from 'mysql2';
import { BinaryTextPlugin } from './binary-text.js';
import { mysqlDialect } from './mysql-dialect.js';

export type { MysqlPool };

export type MysqlStorageOptions = (
  | {
      /** `mysql://user:password@host:3306/database`; the storage opens and closes its own pool. */
      url: string;
      pool?: never;
      /** Connections in the pool. @default 10 */
      max?: number;
      /** How long opening a connection may take. @default 5_000 */
      connectTimeoutMs?: number;
    }
  | {
      /**
       * The app's own mysql2 pool (`mysql2`'s `createPool`, or the `.pool` of a `mysql2/promise` pool);
       * Tidings never ends it.
       */
      pool: MysqlPool;
      url?: never;
    }
) & {
  /** Apply pending migrations before the first operation. @default true */
  migrate?: boolean;
  /**
   * Called with errors of the storage's own pool that no query is waiting for (a connection dropped
   * by a restart or a network cut); the pool opens another. @default one line on console.warn
   */
  onConnectionError?: (error: Error) => void;
};

/**
 * Storage in MySQL 8 or MariaDB 10.6+, for apps that run many processes: jobs are claimed with
 * `FOR UPDATE SKIP LOCKED` leases and transactions are serializable (retried when InnoDB picks them
 * as a deadlock's victim). MySQL has no LISTEN/NOTIFY: a process's idle job loop finds jobs another
 * process enqueued when it next looks, within `maxIdleMs` (5 s by default).
 */
export function createMysqlStorage(options: MysqlStorageOptions): SqlStorage {
  const own = options.pool === undefined;
  const pool = options.pool ?? ownPool(options, options.onConnectionError ?? ((error: Error) => console.warn(`[tidings mysql] connection lost: ${error.message}`)));
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }), plugins: [new BinaryTextPlugin()] });
  return createSqlStorage({
    db,
    dialect: mysqlDialect,
    durable: true,
    ...(options.migrate !== undefined && { migrate: options.migrate }),
    async close() {
      if (own) await db.destroy();
    },
  });
}

function ownPool(options: Extract<MysqlStorageOptions, { url: string }>, onConnectionError: (error: Error) => void): MysqlPool {
  const pool = mysql.createPool({
    uri: options.url,
    connectionLimit: options.max ?? 10,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    // Documents and text in full Unicode; instants are text, so the connection's time zone never matters.
    charset: 'utf8mb4_bin',
  });
  // A connection that fails while idle in the pool reports it here; the pool drops it.
  pool.on('connection', (connection) => connection.on('error', onConnectionError));
  return pool;
}

/** `host:port` of a connection URL (for messages that say which database), or null when it is not a URL. */
export function mysqlAddress(url: string): string | null {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '3306'}`;
  } catch {
    return null;
  }
}
