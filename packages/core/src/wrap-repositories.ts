import type { StorageRepositories } from './storage.js';

type Method = (...args: unknown[]) => Promise<unknown>;

/** The repositories of the Storage port, by name: the members a wrapper passes through. */
export const REPOSITORY_NAMES = ['workflows', 'subscribers', 'topics', 'tenants', 'integrations', 'preferences', 'notifications', 'jobs', 'messages', 'traces', 'digests', 'idempotency', 'deliveryStatus', 'suppressions', 'webhooks', 'frequency', 'settings', 'retention', 'records'] as const satisfies readonly (keyof StorageRepositories)[];

/**
 * The same repositories with every method call passed through `around`, which learns the call's
 * name (`jobs.claimDue`) — for adapters that run each call under a lock or after migrations, and for
 * test wrappers that fail chosen calls. Members of a Storage other than its repositories are left out.
 */
export function wrapRepositories(repositories: StorageRepositories, around: (call: () => Promise<unknown>, name: string) => Promise<unknown>): StorageRepositories {
  return Object.fromEntries(
    REPOSITORY_NAMES.map((name) => [
      name,
      Object.fromEntries(
        Object.entries(repositories[name] as unknown as Record<string, Method>).map(([method, fn]) => [method, (...args: unknown[]) => around(() => fn(...args), `${name}.${method}`)]),
      ),
    ]),
  ) as unknown as StorageRepositories;
}
