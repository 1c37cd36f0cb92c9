import type { SqliteStatement } from 'kysely';

/**
 * The parts of a better-sqlite3 `Database` Tidings uses. The public types name these rather than
 * better-sqlite3's own, so a TypeScript app that passes its handle (or only a file name) needs no
 * @types/better-sqlite3; a better-sqlite3 `Database` fits them as it is.
 */
export interface SqliteHandle {
  prepare(source: string): SqliteStatement;
  pragma(source: string): unknown;
  close(): unknown;
  readonly memory: boolean;
  readonly open: boolean;
  /** The file it was opened from: the storage takes that file's writer lock. */
  readonly name?: string;
  /** Opened read-only: the storage takes no writer lock. */
  readonly readonly?: boolean;
}
