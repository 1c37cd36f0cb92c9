export { createMysqlStorage, mysqlAddress, type MysqlPool, type MysqlStorageOptions } from './mysql-storage.js';
export { mysqlDialect } from './mysql-dialect.js';
