import pg from 'pg';
import { describe, it } from 'vitest';
import { RECORD_STORE_UPGRADES } from '../../sql/test/record-store-upgrades.js';
import { postgresDialect, postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const schemaName = freshSchemas(url, 'tidings_upgrade_records');

describe('postgres upgrades to the record store', () => {
  for (const upgrade of RECORD_STORE_UPGRADES) {
    it.skipIf(!url)(upgrade.name, async () => {
      const schema = schemaName();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema "${schema}"`);
      await admin.end();
      const storage = postgresStorage({ connectionString: url!, schema, migrate: false, max: 2 });
      try {
        await upgrade.check(storage, { ...postgresDialect, schema });
      } finally {
        await storage.close();
      }
    });
  }
});
