import type { Job } from '../../schemas/index.js';
import type { Storage, StorageRepositories } from '../../storage.js';
import { REPOSITORY_NAMES } from '../../wrap-repositories.js';
import { lazyMembers } from '../../util/lazy-members.js';


/**
 * The repositories with `jobs.enqueue` telling `enqueued`; each member is read from `repositories`
 * only when first used (a transaction's repositories are made on first use: reading them all here
 * made every repository for every transaction).
 */
function withEnqueueHook(repositories: StorageRepositories, enqueued: (jobs: readonly Job[]) => void): StorageRepositories {
  const jobs = (): StorageRepositories['jobs'] => {
    const inner = repositories.jobs;
    return {
      ...inner,
      async enqueue(env: string, added: readonly Job[]) {
        await inner.enqueue(env, added);
        enqueued(added);
      },
    };
  };
  // Made in one step: with `jobs` assigned after the object was made, young collections kept each
  // transaction's callback alive, and the batch of jobs around it (docs/performance.md).
  const makers = Object.fromEntries(REPOSITORY_NAMES.map((name) => [name, name === 'jobs' ? jobs : () => repositories[name]]));
  return lazyMembers<StorageRepositories>(makers as { [K in keyof StorageRepositories]: () => StorageRepositories[K] });
}

/**
 * The engine's view of the storage: enqueuing jobs tells `onEnqueued` once they are committed (at
 * once outside a transaction, after the commit inside one), so no caller has to remember to wake the
 * job loop, and jobs of a transaction that rolled back wake nobody.
 */
export function wakingStorage(storage: Storage, onEnqueued: (jobs: readonly Job[]) => void): Storage {
  return {
    ...withEnqueueHook(storage, onEnqueued),
    capabilities: storage.capabilities,
    close: () => storage.close(),
    ...(storage.subscribeJobs && { subscribeJobs: storage.subscribeJobs.bind(storage) }),
    async transaction(fn) {
      let pending: Job[] = [];
      const result = await storage.transaction((tx) => {
        // A transaction the storage runs again (a Postgres serialization retry) starts over.
        pending = [];
        return fn(withEnqueueHook(tx, (jobs) => {
          for (const job of jobs) pending.push(job);
        }));
      });
      if (pending.length > 0) onEnqueued(pending);
      return result;
    },
  };
}
