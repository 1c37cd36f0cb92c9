import { claimDueJobsLocked, lockingReturning, MYSQL_BASELINE, type Db, type SqlDialect } from '@tidings/sql';
import { sql } from 'kysely';

/**
 * Errors after which a transaction is run again from the start: a deadlock (InnoDB rolled the
 * transaction back), a lock wait that timed out, and MariaDB's "record has changed since last read"
 * (snapshot isolation).
 */
const RETRYABLE = new Set([1213, 1205, 1020]);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` in a SERIALIZABLE transaction: InnoDB then reads every row with a shared lock, so two
 * transactions that read what the other writes cannot both commit; the loser of such a conflict is
 * rolled back as a deadlock, and run again.
 */
const serializable = <T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> => retried(db, 'serializable', fn);

/**
 * The claim's transaction: READ COMMITTED, the level queues on InnoDB claim at. Under SERIALIZABLE
 * a locking read keeps next-key locks on what it passed over, and concurrent claims skipping those
 * found nothing while due jobs were left (seen on MariaDB under load); the claim's rows are locked
 * by `for update` either way, so no job goes to two workers.
 */
const readCommitted = <T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> => retried(db, 'read committed', fn);

async function retried<T>(db: Db, level: 'serializable' | 'read committed', fn: (tx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().setIsolationLevel(level).execute(fn);
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (attempt >= 20 || errno === undefined || !RETRYABLE.has(errno)) throw error;
      await pause(Math.random() * Math.min(100, 2 ** attempt));
    }
  }
}

/** The migration lock's name: one per database (`GET_LOCK` names are the server's), under 64 characters. */
const migrationLock = sql`concat('tidings_migrate:', md5(database()))`;

/** `$."a"."b"`: a JSON path whose keys are quoted, so any key is read as it is. */
const jsonPath = (path: readonly string[]) => `$${path.map((key) => `."${key.replace(/["\\]/g, (ch) => `\\${ch}`)}"`).join('')}`;

/**
 * MySQL 8 and MariaDB 10.6+. Jobs are claimed with `FOR UPDATE SKIP LOCKED`; there is no
 * LISTEN/NOTIFY, so other processes' job loops find new jobs when they next look (`maxIdleMs`).
 */
export const mysqlDialect: SqlDialect = {
  name: 'mysql',
  jsonType: sql`longtext`,
  serialType: sql`bigint auto_increment`,
  keyType: sql`varbinary(1024)`,
  // mysql2 writes the values into the statement's text, so the bound is the statement's size (the
  // server's max_allowed_packet, 16 MiB by default on MariaDB), not the prepared-statement limit.
  maxParams: 16_384,
  multiProcess: true,
  baseline: MYSQL_BASELINE,
  transaction: serializable,
  claimDue: (db, options) => claimDueJobsLocked(db, options, readCommitted),
  async withMigrationLock(db, fn) {
    // GET_LOCK belongs to the session: the lock, the migrations and the release share one connection.
    await db.connection().execute(async (conn) => {
      const { rows } = await sql<{ got: number | null }>`select get_lock(${migrationLock}, 600) as got`.execute(conn);
      if (Number(rows[0]?.got) !== 1) throw new Error('Another process held the Tidings migration lock (GET_LOCK) for 10 minutes');
      try {
        await fn(conn);
      } finally {
        await sql`select release_lock(${migrationLock})`.execute(conn);
      }
    });
  },
  // Both sides as JSON (MySQL 8 compares them as JSON values; MariaDB hands both back as their JSON
  // text), compared byte for byte: "1" is not 1, and true is not 1.
  docMemberEquals: (path, json) => sql<boolean>`(cast(json_extract(doc, ${jsonPath(path)}) as binary) = cast(json_extract(${json}, '$') as binary))`,
  skipTaken: (insert) => insert.ignore(),
  upsert: (insert, { update }) => insert.onDuplicateKeyUpdate(Object.fromEntries(update.map((column) => [column, sql`values(${sql.ref(column)})`])) as never),
  ...lockingReturning(serializable),
};
