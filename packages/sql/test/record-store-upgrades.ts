import type { SqlDialect, SqlStorage } from '../src/index.js';
import { upgradeKeepsDeliveryStatus } from './delivery-status-upgrade.js';
import { upgradeKeepsDigests } from './digests-upgrade.js';
import { upgradeKeepsPeopleAndTriggers } from './people-upgrade.js';
import { upgradeKeepsRecords } from './records-upgrade.js';

/** The migrations that move tables into the record store, each with the check that its rows read back: one list for every SQL backend. */
export const RECORD_STORE_UPGRADES: readonly { name: string; check: (storage: SqlStorage, dialect: SqlDialect) => Promise<void> }[] = [
  { name: 'upgrading to the record store (0016): every row of the tables it replaces reads back through core’s repositories', check: upgradeKeepsRecords },
  { name: 'upgrading digests to the record store (0017): open and closed digests, their events and backoff keys read back through core’s repository', check: upgradeKeepsDigests },
  { name: 'upgrading to delivery status records (0018): provider references and held events read back through core’s repository', check: upgradeKeepsDeliveryStatus },
  { name: 'upgrading subscribers, notifications and decision records to the record store (0020): each reads back through core’s repositories, in its order', check: upgradeKeepsPeopleAndTriggers },
];
