import type { RecordStore } from './record-store.js';
import type { Integration } from '../schemas/index.js';
import type { IntegrationRepository } from '../storage.js';
import { docsOf, firstDoc } from './docs.js';
import { refuseTakenIdentifier } from './unique-identifier.js';

const TABLE = 'integrations';
const bit = (value: boolean) => (value ? '1' : '0');

/** Integrations by `_id`, indexed by identifier (`i1`), channel (`i2`) and active (`i3`, '1' or '0'), ordered by `createdAt`. */
export function integrationRepository(records: RecordStore): IntegrationRepository {
  return {
    async upsert(env, integration) {
      await refuseTakenIdentifier(records, env, TABLE, integration, 'An integration');
      await records.put(env, TABLE, [{ key: integration._id, i1: integration.identifier, i2: integration.channel, i3: bit(integration.active), sort: integration.createdAt, doc: integration }]);
      return integration;
    },
    async list(env, filter = {}) {
      return docsOf<Integration>(
        await records.find(env, TABLE, {
          ...(filter.channel !== undefined && { i2: filter.channel }),
          ...(filter.active !== undefined && { i3: bit(filter.active) }),
        }),
      );
    },
    get: async (env, id) => firstDoc<Integration>(await records.get(env, TABLE, [id])),
  };
}
