import type { Storage } from '@tidings/core';
import type { KernelRepositories, StorageRepositories } from '@tidings/core/internal';
import { storageRepositories, wrapRepositories } from '@tidings/core/internal';
import { deliveryRepositories } from './repositories/delivery.js';
import { peopleRepositories } from './repositories/people.js';
import { recordStore } from './repositories/records.js';
import { retentionRepositories } from './repositories/retention.js';
import { Tables } from './tables.js';

export interface MemoryStorageOptions {
  /**
   * Records go in and come out as copies, so no caller can change what is stored by accident.
   * `false` shares them instead: the store's own work roughly halves (copies and their garbage
   * collection are most of its time), for apps that never change a record after handing it to the
   * store or getting it back (from the store or in an event). The engine never does. @default true
   */
  copyRecords?: boolean;
}

/**
 * Storage in plain Maps: for tests and apps that need nothing to survive a restart. Transactions run
 * one at a time and are undone whole when they throw; calls outside a transaction wait for the
 * running one, so nobody sees half of one.
 */
export function memoryStorage(options: MemoryStorageOptions = {}): Storage {
  const tables = new Tables({ copyRecords: options.copyRecords ?? true });
  const records = recordStore(tables);
  const kernel: KernelRepositories = {
    ...peopleRepositories(tables),
    ...deliveryRepositories(tables),
    ...retentionRepositories(tables),
  };
  // Every call runs alone, inside a transaction or as one of its own (`exclusive`), and is undone
  // whole when it throws: the repositories at hand are atomic already.
  const raw: StorageRepositories = storageRepositories(kernel, records, (fn) => fn(kernel, records));

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
