import { wrapRepositories, type Storage, type StorageRepositories } from '@tidings/core';
import { catalogRepositories } from './repositories/catalog.js';
import { deliveryRepositories } from './repositories/delivery.js';
import { digestRepositories } from './repositories/digests.js';
import { idempotencyRepositories } from './repositories/idempotency.js';
import { peopleRepositories } from './repositories/people.js';
import { Tables } from './tables.js';

/**
 * Storage in plain Maps: for tests and apps that need nothing to survive a restart. Transactions run
 * one at a time and are undone whole when they throw; calls outside a transaction wait for the
 * running one, so nobody sees half of one.
 */
export function memoryStorage(): Storage {
  const tables = new Tables();
  const raw: StorageRepositories = {
    ...catalogRepositories(tables),
    ...peopleRepositories(tables),
    ...deliveryRepositories(tables),
    ...digestRepositories(tables),
    ...idempotencyRepositories(tables),
  };

  let tail: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: (tx: StorageRepositories) => Promise<T>): Promise<T> {
    const run = tail.then(async () => {
      tables.begin();
      try {
        const result = await fn(raw);
        tables.commit();
        return result;
      } catch (error) {
        tables.rollback();
        throw error;
      }
    });
    tail = run.catch(() => undefined);
    return run;
  }

  const outside = wrapRepositories(raw, (call) => exclusive(call));

  return {
    ...outside,
    capabilities: { multiProcess: false, durable: false },
    transaction: exclusive,
    async close() {},
  };
}
