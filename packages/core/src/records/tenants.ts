import type { RecordStore } from './record-store.js';
import type { Tenant } from '../schemas/index.js';
import type { TenantRepository } from '../storage.js';
import { firstDoc } from './docs.js';

const TABLE = 'tenants';

/** Tenants keyed by identifier. */
export function tenantRepository(records: RecordStore): TenantRepository {
  return {
    async upsert(env, tenant) {
      await records.put(env, TABLE, [{ key: tenant.identifier, doc: tenant }]);
      return tenant;
    },
    get: async (env, identifier) => firstDoc<Tenant>(await records.get(env, TABLE, [identifier])),
  };
}
