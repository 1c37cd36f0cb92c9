import { describeStorage, type ConformancePart } from '@tidings/core/conformance';
import { beforeAll, describe, it } from 'vitest';
import { rawSqlMessage } from '../../../test-support/sql-raw-message.js';
import { rawSqlDump } from '../../../test-support/sql-raw-dump.js';
import { createMysqlStorage } from '../src/index.js';
import { freshDatabases, withAdmin } from './databases.js';

/**
 * The conformance suite (or a part of it) on MySQL/MariaDB. The file's tests share one database,
 * migrated once and emptied before each test (its tests run one at a time); the database is
 * dropped after the file.
 */
export function describeMysql(part: ConformancePart): void {
  const url = process.env['TIDINGS_TEST_MYSQL_URL'];
  if (!url) {
    describe('mysql storage', () => {
      it.skip('needs TIDINGS_TEST_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/test) to run', () => {});
    });
    return;
  }
  const freshDatabase = freshDatabases(url, 'tidings_t');
  let database!: string;
  let tables: string[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
    const storage = createMysqlStorage({ url: database });
    await storage.migrate();
    await storage.close();
    tables = await withAdmin(database, async (admin) => {
      const [rows] = await admin.query("select table_name as name from information_schema.tables where table_schema = database() and table_type = 'BASE TABLE' and table_name <> 'tidings_migrations'");
      return (rows as { name: string }[]).map((row) => row.name);
    });
  });
  describeStorage(
    'mysql',
    {
      async create() {
        await withAdmin(database, async (admin) => {
          for (const table of tables) await admin.query(`delete from \`${table}\``);
        });
        return createMysqlStorage({ url: database, max: 4 });
      },
      rawMessage: rawSqlMessage, rawDump: rawSqlDump,
    },
    part,
  );
}
