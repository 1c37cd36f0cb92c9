import { it } from 'vitest';
import { upgradeKeepsRecords } from '../../sql/test/records-upgrade.js';
import { sqliteDialect, sqliteStorage } from '../src/index.js';

it('upgrading to the record store (0016): every row of the tables it replaces reads back through core’s repositories', async () => {
  const storage = sqliteStorage({ filename: ':memory:', migrate: false });
  try {
    await upgradeKeepsRecords(storage, sqliteDialect);
  } finally {
    await storage.close();
  }
});
