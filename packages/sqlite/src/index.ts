export { sqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';
export { sqliteDialect } from './sqlite-dialect.js';
export { SqlitePathError } from './check-path.js';
export { SqliteInUseError } from './writer-lock.js';
export type { SqliteHandle } from './sqlite-handle.js';
