export { postgresAddress, postgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
export { postgresDialect } from './postgres-dialect.js';
export type { PgPool, PgPoolClient } from './pg-handle.js';
