import pg from 'pg';
import { describe, it } from 'vitest';
import { upgradeKeepsDigests } from '../../sql/test/digests-upgrade.js';
import { postgresDialect, postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const schemaName = freshSchemas(url, 'tidings_upgrade_digests');

describe('postgres upgrade of digests to the record store', () => {
  it.skipIf(!url)('upgrading digests to the record store (0017): open and closed digests, their events and backoff keys read back through core’s repository', async () => {
    const schema = schemaName();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    await admin.end();
    const storage = postgresStorage({ connectionString: url!, schema, migrate: false, max: 2 });
    try {
      await upgradeKeepsDigests(storage, { ...postgresDialect, schema });
    } finally {
      await storage.close();
    }
  });
});
