import type { Storage, StorageRepositories } from '../storage.js';
import { wrapRepositories } from '../wrap-repositories.js';

/** The storage with some repositories or its `transaction` replaced, for a test to watch or steer; the rest passes through. */
export function storageWith(storage: Storage, replaced: Partial<StorageRepositories> & { transaction?: Storage['transaction'] } = {}): Storage {
  return {
    ...wrapRepositories(storage, (call) => call()),
    capabilities: storage.capabilities,
    close: () => storage.close(),
    ...(storage.subscribeJobs && { subscribeJobs: storage.subscribeJobs.bind(storage) }),
    transaction: (fn) => storage.transaction(fn),
    ...replaced,
  };
}
