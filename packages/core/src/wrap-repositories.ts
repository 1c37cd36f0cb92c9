import type { StorageRepositories } from './storage.js';

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * The same repositories with every method call passed through `around` — for adapters that run each
 * call under a lock, after migrations, and so on.
 */
export function wrapRepositories(repositories: StorageRepositories, around: (call: () => Promise<unknown>) => Promise<unknown>): StorageRepositories {
  return Object.fromEntries(
    Object.entries(repositories).map(([name, repository]) => [
      name,
      Object.fromEntries(Object.entries(repository as Record<string, Method>).map(([method, fn]) => [method, (...args: unknown[]) => around(() => fn(...args))])),
    ]),
  ) as unknown as StorageRepositories;
}
