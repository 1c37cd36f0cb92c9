import { it } from 'vitest';
import { RECORD_STORE_UPGRADES } from '../../sql/test/record-store-upgrades.js';
import { sqliteDialect, sqliteStorage } from '../src/index.js';

for (const upgrade of RECORD_STORE_UPGRADES) {
  it(upgrade.name, async () => {
    const storage = sqliteStorage({ filename: ':memory:', migrate: false });
    try {
      await upgrade.check(storage, sqliteDialect);
    } finally {
      await storage.close();
    }
  });
}
