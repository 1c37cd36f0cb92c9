import { randomUUID } from 'node:crypto';
import { describeStorage } from '@tidings/core/conformance';
import { rawSqlMessage } from '../../../test-support/sql-raw-message.js';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { postgresStorage } from '../src/index.js';

const url = process.env['TIDINGS_TEST_PG_URL'];

if (!url) {
  describe('postgres storage', () => {
    it.skip('needs TIDINGS_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run', () => {});
  });
} else {
  // Each test gets its own schema, so test files (and tests) never see each other's rows.
  const schemas: string[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  describeStorage('postgres', {
    create() {
      const schema = `tidings_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      schemas.push(schema);
      return postgresStorage({ connectionString: url, schema, max: 4 });
    },
    rawMessage: rawSqlMessage,
  });
}
