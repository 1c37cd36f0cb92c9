import type { Storage } from '../../storage.js';

/**
 * Workers of this process currently running jobs, per storage. On a storage without `multiProcess`
 * every worker that can hold a lease is one of these, so any other lease belongs to a process that
 * died and can be taken back at once instead of after it expires.
 */
const running = new WeakMap<Storage, Map<string, number>>();

export const liveWorkers = {
  enter(storage: Storage, workerId: string): void {
    let workers = running.get(storage);
    if (!workers) running.set(storage, (workers = new Map()));
    workers.set(workerId, (workers.get(workerId) ?? 0) + 1);
  },
  leave(storage: Storage, workerId: string): void {
    const workers = running.get(storage);
    const count = (workers?.get(workerId) ?? 1) - 1;
    if (count <= 0) workers?.delete(workerId);
    else workers?.set(workerId, count);
  },
  of(storage: Storage): string[] {
    return [...(running.get(storage)?.keys() ?? [])];
  },
};
