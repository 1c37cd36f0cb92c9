import { it } from 'vitest';
import { upgradeKeepsDigests } from '../../sql/test/digests-upgrade.js';
import { sqliteDialect, sqliteStorage } from '../src/index.js';

it('upgrading digests to the record store (0017): open and closed digests, their events and backoff keys read back through core’s repository', async () => {
  const storage = sqliteStorage({ filename: ':memory:', migrate: false });
  try {
    await upgradeKeepsDigests(storage, sqliteDialect);
  } finally {
    await storage.close();
  }
});
