import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A database path that cannot be used, with one line saying which path and why. */
export class SqlitePathError extends Error {
  override readonly name = 'SqlitePathError';
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code ?? '';

/**
 * Checks a database path before SQLite opens it, so a bad path fails at once with a clear line
 * instead of later, at the first write: creates its folder when missing, and a new file readable and
 * writable by its owner only (it holds integration credentials). SQLite's -wal and -shm files take
 * the database file's permissions.
 */
export function prepareSqlitePath(filename: string): void {
  const file = resolve(filename);
  const folder = dirname(file);
  const real = (() => {
    try {
      return realpathSync(folder);
    } catch {
      return folder;
    }
  })();
  if (/^\/(proc|sys|dev)(\/|$)/.test(real)) throw new SqlitePathError(`cannot keep a database at ${file}: ${real} is a system folder, not storage`);
  if (existsSync(folder) && !statSync(folder).isDirectory()) throw new SqlitePathError(`cannot keep a database at ${file}: ${folder} is a file, not a folder`);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    const why = code(error) === 'ENOTDIR' ? 'a part of that path is a file, not a folder' : code(error) === 'EACCES' || code(error) === 'EROFS' ? 'no permission to create that folder' : (error as Error).message;
    throw new SqlitePathError(`cannot create the folder ${folder} for the database: ${why}`);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new SqlitePathError(`cannot write in ${folder}: SQLite needs to create the database and its -wal and -shm files there`);
  }
  if (existsSync(file)) {
    if (statSync(file).isDirectory()) throw new SqlitePathError(`cannot use ${file} as a database: it is a folder`);
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch {
      throw new SqlitePathError(`the database file ${file} is read-only (or unreadable) for this user`);
    }
    return;
  }
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if (code(error) !== 'EEXIST') throw new SqlitePathError(`cannot create the database file ${file}: ${(error as Error).message}`);
  }
}
