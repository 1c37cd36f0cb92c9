import { it } from 'vitest';
import { upgradeKeepsDeliveryStatus } from '../../sql/test/delivery-status-upgrade.js';
import { sqliteDialect, sqliteStorage } from '../src/index.js';

it('upgrading to delivery status records (0018): provider references and held events read back through core’s repository', async () => {
  const storage = sqliteStorage({ filename: ':memory:', migrate: false });
  try {
    await upgradeKeepsDeliveryStatus(storage, sqliteDialect);
  } finally {
    await storage.close();
  }
});
