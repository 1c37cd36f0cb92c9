import pg from 'pg';
import { describe, it } from 'vitest';
import { upgradeKeepsRecords } from '../../sql/test/records-upgrade.js';
import { postgresDialect, postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const schemaName = freshSchemas(url, 'tidings_upgrade');

describe('postgres upgrade to the record store', () => {
  it.skipIf(!url)('upgrading to the record store (0016): every row of the tables it replaces reads back through core’s repositories', async () => {
    const schema = schemaName();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    await admin.end();
    const storage = postgresStorage({ connectionString: url!, schema, migrate: false, max: 2 });
    try {
      await upgradeKeepsRecords(storage, { ...postgresDialect, schema });
    } finally {
      await storage.close();
    }
  });
});
