import { createSqlStorage, type Database as Tables, type SqlStorage } from '@tidings/sql';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { prepareSqlitePath } from './check-path.js';
import { SAFETY_NET_PAGES, walCheckpointer } from './checkpointer.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { SqliteHandle } from './sqlite-handle.js';
import { withStatementCache } from './statement-cache.js';
import { takeWriterLock } from './writer-lock.js';

export type SqliteStorageOptions = (
  | {
      /**
       * Path of the database file, or `:memory:`. Its folder is created; a new file is made readable
       * by its owner only. A path that cannot be used throws a `SqlitePathError` naming it.
       */
      filename: string;
      database?: never;
    }
  | {
      /** The app's own better-sqlite3 handle; Tidings never closes it. */
      database: SqliteHandle;
      filename?: never;
    }
) & {
  /** Apply pending migrations before the first operation. @default true */
  migrate?: boolean;
  /**
   * Open the database to read it only, while another process writes it (to look at an app's
   * activity, say): no migrations, no writer lock, no checkpoints, and every write fails. A file
   * given by name must exist. Without it, the storage takes the file's writer lock (`<file>-lock`),
   * and a second writer, in another process or this one, is refused with a `SqliteInUseError`.
   * @default false
   */
  readOnly?: boolean;
  /** How long a writer waits for another process's lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * The size the WAL file is brought back to once no reader needs what it holds (SQLite's
   * `journal_size_limit`, and a truncating checkpoint): a read transaction in another process lets
   * the log grow as long as it lasts. For a file Tidings opens; a handle you pass in keeps its own
   * settings. @default 67_108_864 (64 MiB)
   */
  walSizeLimitBytes?: number;
};

/** Above the ~40 MB the WAL reaches before a commit checkpoints it itself, so a busy log is not shrunk and regrown. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `step` again while SQLite answers SQLITE_BUSY, up to `timeoutMs`. Switching a file to WAL
 * takes a lock SQLite does not wait for with its busy handler: when several processes open one new
 * file at once, or one opens it while the last one closes it, the switch fails at once otherwise.
 */
function whileBusy(timeoutMs: number, step: () => unknown): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      step();
      return;
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

/** The file a database was opened from, when it is one that can be written (not in memory, not read-only). */
const writtenFile = (database: SqliteHandle): string | null => (database.memory || database.readonly || !database.name ? null : database.name);

/**
 * Storage in one SQLite file: the embedded default. WAL journal, `synchronous=NORMAL`, a busy timeout
 * and cached prepared statements. One process writes a file: the storage holds its writer lock while
 * open, and refuses to open a file another writer holds (`readOnly` reads one); for many processes
 * use Postgres or MySQL.
 */
export function sqliteStorage(options: SqliteStorageOptions): SqlStorage {
  const own = options.database === undefined;
  const readOnly = options.readOnly ?? false;
  let database: SqliteHandle;
  let release: (() => void) | null = null;
  if (options.database) database = options.database;
  else if (readOnly) database = new Database(options.filename, { readonly: true, fileMustExist: true });
  else {
    const file = options.filename !== ':memory:' && options.filename !== '';
    if (file) prepareSqlitePath(options.filename);
    release = file ? takeWriterLock(options.filename) : null;
    try {
      database = new Database(options.filename);
    } catch (error) {
      release?.();
      throw error;
    }
  }
  if (!own && !readOnly) {
    const file = writtenFile(database);
    if (file) release = takeWriterLock(file);
  }
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000));
  database.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // A reader leaves the file's settings to its writer.
  if (!database.memory && !readOnly) whileBusy(busyTimeoutMs, () => database.pragma('journal_mode = WAL'));
  if (!readOnly) database.pragma('synchronous = NORMAL');
  // A file of our own is checkpointed by a worker thread; the commit checkpoints only past the safety net.
  const walSizeLimitBytes = Number.isFinite(options.walSizeLimitBytes) ? Math.max(0, Math.floor(options.walSizeLimitBytes!)) : WAL_SIZE_LIMIT_BYTES;
  const checkpointer = own && !readOnly && !database.memory && options.filename ? walCheckpointer(options.filename, busyTimeoutMs, walSizeLimitBytes) : null;
  if (checkpointer) {
    database.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    // The writer shrinks the log back to the limit when it starts it over after a complete checkpoint.
    database.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
  }
  const cached = withStatementCache(database);
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: { prepare: cached.prepare, close: () => cached.close() } }) });
  const storage = createSqlStorage({
    db,
    dialect: sqliteDialect,
    durable: !database.memory,
    ...(readOnly ? { migrate: false } : options.migrate !== undefined && { migrate: options.migrate }),
    async close() {
      await checkpointer?.close();
      await db.destroy();
      if (own && database.open) database.close();
      release?.();
    },
  });
  if (!checkpointer) return storage;
  return {
    ...storage,
    async transaction(fn) {
      try {
        return await storage.transaction(fn);
      } finally {
        checkpointer.written();
      }
    },
  };
}
