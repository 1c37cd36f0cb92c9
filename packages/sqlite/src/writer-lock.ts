import Database from 'better-sqlite3';

/** Another process (or another storage in this one) writes the database: the one line that says so and what to do. */
export class SqliteInUseError extends Error {
  override readonly name = 'SqliteInUseError';
}

/** The lock beside a database: SQLite's own suffixes are `-wal`, `-shm` and `-journal`. */
export const lockFileOf = (filename: string): string => `${filename}-lock`;

/**
 * Takes the database's writer lock: a small SQLite file beside it, held in SQLite's exclusive
 * locking mode for as long as the storage is open. The lock is an OS file lock, so it goes with the
 * process that holds it (a crash or `kill -9` leaves nothing stale to clean up), and a second writer,
 * in another process or this one, is refused at once. Readers (`readOnly`) take no lock. Returns the
 * release.
 */
export function takeWriterLock(filename: string): () => void {
  const file = lockFileOf(filename);
  const lock = new Database(file, { timeout: 0 });
  try {
    lock.pragma('locking_mode = exclusive');
    // In exclusive locking mode the first write's lock is kept until the connection closes.
    lock.exec('begin exclusive; create table if not exists writer (since text); commit;');
  } catch (error) {
    lock.close();
    if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
    throw new SqliteInUseError(
      `${filename} is in use: another process (or another storage of this one) writes it, and SQLite takes one writing process (the lock is ${file}). ` +
        'Stop that process first; to look at its database while it runs, open it read-only (sqliteStorage({ filename, readOnly: true }), or tidings serve --read-only). ' +
        'For several processes on one database, use Postgres or MySQL.',
    );
  }
  return () => {
    if (lock.open) lock.close();
  };
}
