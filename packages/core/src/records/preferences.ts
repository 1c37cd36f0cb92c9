import type { RecordStore } from './record-store.js';
import type { PreferenceRow } from '../schemas/index.js';
import type { PreferenceRepository } from '../storage.js';
import { docsOf } from './docs.js';

const TABLE = 'preferences';

/**
 * A row's key: the subscriber, then the workflow (empty for the global row), apart by a control
 * character no id uses; migration 0016 writes the same keys (`chr(1)`).
 */
const keyOf = (row: Pick<PreferenceRow, 'subscriberId' | 'workflowId'>) => `${row.subscriberId}\u0001${row.workflowId ?? ''}`;

/** Preference rows keyed by (subscriber, workflow), indexed by subscriber (`i1`). */
export function preferenceRepository(records: RecordStore): PreferenceRepository {
  return {
    list: async (env, subscriberId) => docsOf<PreferenceRow>(await records.find(env, TABLE, { i1: subscriberId })),
    listMany: async (env, subscriberIds) => (subscriberIds.length === 0 ? [] : docsOf<PreferenceRow>(await records.find(env, TABLE, { i1: subscriberIds }))),
    async putMany(env, rows) {
      if (rows.length > 0) await records.put(env, TABLE, rows.map((row) => ({ key: keyOf(row), i1: row.subscriberId, i2: row.workflowId, doc: row })));
    },
  };
}

/**
 * Deletes the subscriber's preferences: the other half of a subscriber's deletion, which
 * `storageRepositories` runs with the backend's in one atomic step.
 */
export async function deletePreferencesOf(records: RecordStore, env: string, subscriberId: string): Promise<void> {
  await records.deleteWhere(env, TABLE, { i1: subscriberId });
}
