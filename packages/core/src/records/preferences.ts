import type { RecordStore } from './record-store.js';
import type { PreferenceRow } from '../schemas/index.js';
import type { PreferenceRepository } from '../storage.js';
import { docsOf } from './docs.js';

const TABLE = 'preferences';
/** The audit trail of preference changes, by subscriber (`i1`). */
export const PREFERENCE_CHANGES = 'preference-changes';

/**
 * A row's key: the subscriber, then the workflow (empty for the global row), apart by a control
 * character no id uses; migration 0016 writes the same keys (`chr(1)`). A category's row puts `chr(2)`
 * between the subscriber and the category instead.
 */
const keyOf = (row: Pick<PreferenceRow, 'subscriberId' | 'workflowId' | 'category'>) =>
  row.workflowId === null && row.category !== undefined ? `${row.subscriberId}\u0002${row.category}` : `${row.subscriberId}\u0001${row.workflowId ?? ''}`;

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
 * Deletes the subscriber's preferences and their audit trail: the other half of a subscriber's deletion, which
 * `storageRepositories` runs with the backend's in one atomic step.
 */
export async function deletePreferencesOf(records: RecordStore, env: string, subscriberId: string): Promise<void> {
  await records.deleteWhere(env, TABLE, { i1: subscriberId });
  await records.deleteWhere(env, PREFERENCE_CHANGES, { i1: subscriberId });
}
