export { createSqlStorage, type SqlStorage, type SqlStorageOptions } from './sql-storage.js';
export { migrate, MIGRATIONS, type Migration } from './migrations.js';
export type { Db, SqlDialect, JobRow } from './dialect.js';
export type { Database } from './tables.js';
export { jobFromRow } from './repositories/delivery.js';
export { chunk, decodeJson, encodeJson } from './codec.js';
export { claimDueJobs } from './claim-due.js';
