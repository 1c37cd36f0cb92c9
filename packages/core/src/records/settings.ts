import type { RecordStore } from './record-store.js';
import type { SettingsRepository } from '../storage.js';

const TABLE = 'settings';

/** Settings keyed by name; the value is the document. */
export function settingsRepository(records: RecordStore): SettingsRepository {
  return {
    async get(env, name) {
      const [found] = await records.get(env, TABLE, [name]);
      return found ? found.doc : null;
    },
    async put(env, name, value) {
      await records.put(env, TABLE, [{ key: name, doc: value }]);
    },
  };
}
