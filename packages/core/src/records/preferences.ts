import type { RecordStore } from './record-store.js';
import type { PreferenceRow } from '../schemas/index.js';
import type { PreferenceRepository, SubscriberRepository } from '../storage.js';
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
 * The backend's subscriber deletion, with the subscriber's preferences: those go first, so a delete
 * cut short leaves the subscriber to delete again rather than preferences nobody owns.
 */
export function deletingPreferences(subscribers: SubscriberRepository, records: RecordStore): SubscriberRepository {
  return {
    ...subscribers,
    async delete(env, subscriberId) {
      await records.deleteWhere(env, TABLE, { i1: subscriberId });
      return subscribers.delete(env, subscriberId);
    },
  };
}
