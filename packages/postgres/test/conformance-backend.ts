import { randomUUID } from 'node:crypto';
import { describeStorage, type ConformancePart } from '@tidings/core/conformance';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { rawSqlMessage } from '../../../test-support/sql-raw-message.js';
import { rawSqlDump } from '../../../test-support/sql-raw-dump.js';
import { postgresStorage } from '../src/index.js';

/**
 * The conformance suite (or a part of it) on Postgres. The file's tests share one schema, migrated
 * once and emptied before each test (its tests run one at a time): migrating a fresh schema per test
 * cost about a third of a second each. The schema is dropped after the file.
 */
export function describePostgres(part: ConformancePart): void {
  const url = process.env['TIDINGS_TEST_PG_URL'];
  if (!url) {
    describe('postgres storage', () => {
      it.skip('needs TIDINGS_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run', () => {});
    });
    return;
  }
  const schema = `tidings_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  let tables: Promise<string[]> | null = null;
  afterAll(async () => {
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });
  describeStorage(
    'postgres',
    {
      async create() {
        const storage = postgresStorage({ connectionString: url, schema, max: 4 });
        tables ??= storage.migrate().then(async () => (await admin.query<{ tablename: string }>('select tablename from pg_tables where schemaname = $1 and tablename <> $2', [schema, 'tidings_migrations'])).rows.map((r) => r.tablename));
        const names = await tables;
        await admin.query(`truncate ${names.map((t) => `"${schema}"."${t}"`).join(', ')} restart identity`);
        return storage;
      },
      rawMessage: rawSqlMessage, rawDump: rawSqlDump,
    },
    part,
  );
}
