import pg from 'pg';
import { describe, it } from 'vitest';
import { upgradeKeepsDeliveryStatus } from '../../sql/test/delivery-status-upgrade.js';
import { postgresDialect, postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const schemaName = freshSchemas(url, 'tidings_upgrade_status');

describe('postgres upgrade to delivery status records', () => {
  it.skipIf(!url)('upgrading to delivery status records (0018): provider references and held events read back through core’s repository', async () => {
    const schema = schemaName();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    await admin.end();
    const storage = postgresStorage({ connectionString: url!, schema, migrate: false, max: 2 });
    try {
      await upgradeKeepsDeliveryStatus(storage, { ...postgresDialect, schema });
    } finally {
      await storage.close();
    }
  });
});
