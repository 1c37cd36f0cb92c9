import { recordStoreOver, type RecordBackend, type RecordStore } from './record-store.js';
import { lazyMembers } from '../util/lazy-members.js';
import type { Message } from '../schemas/index.js';
import type { MessageRepository, StorageRepositories, SubscriberRepository } from '../storage.js';
import type { KernelRepositories, MessageSweep } from '../kernel/kernel.js';
import { jobRepository } from '../kernel/jobs.js';
import { messageRepository } from '../kernel/messages.js';
import { deleteNotificationsBefore } from '../kernel/retention.js';
import { deleteProviderRefs, deliveryStatusRepository } from './delivery-status.js';
import { digestRepository } from './digests.js';
import { frequencyRepository } from './frequency.js';
import { idempotencyRepository } from './idempotency.js';
import { integrationRepository } from './integrations.js';
import { notificationRepository } from './notifications.js';
import { deletePreferencesOf, preferenceRepository } from './preferences.js';
import { settingsRepository } from './settings.js';
import { subscriberRepository } from './subscribers.js';
import { suppressionRepository } from './suppressions.js';
import { tenantRepository } from './tenants.js';
import { TOPIC_SUBSCRIPTIONS, topicRepository } from './topics.js';
import { traceRepository } from './traces.js';
import { webhookRepository, webhookRetention } from './webhooks.js';
import { workflowRepository } from './workflows.js';

/** The repositories core keeps in the record store: a backend implements none of them. */
export type RecordRepositories = Pick<
  StorageRepositories,
  | 'workflows'
  | 'tenants'
  | 'integrations'
  | 'preferences'
  | 'settings'
  | 'idempotency'
  | 'suppressions'
  | 'webhooks'
  | 'frequency'
  | 'digests'
  | 'deliveryStatus'
  | 'subscribers'
  | 'notifications'
  | 'traces'
>;

/**
 * Runs `fn` with the backend's repositories and record store so that its calls commit together or
 * not at all: inside a transaction, that transaction's; outside one, a new transaction's (or the
 * ones at hand, where every call outside a transaction runs alone and is undone whole, as in memory).
 */
export type Atomically = <T>(fn: (kernel: KernelRepositories, records: RecordBackend) => Promise<T>) => Promise<T>;

/** How each repository over `records` is made. */
const recordMakers = (records: RecordStore): { readonly [K in keyof RecordRepositories]: () => RecordRepositories[K] } => ({
  workflows: () => workflowRepository(records),
  tenants: () => tenantRepository(records),
  integrations: () => integrationRepository(records),
  preferences: () => preferenceRepository(records),
  settings: () => settingsRepository(records),
  idempotency: () => idempotencyRepository(records),
  suppressions: () => suppressionRepository(records),
  webhooks: () => webhookRepository(records),
  frequency: () => frequencyRepository(records),
  digests: () => digestRepository(records),
  deliveryStatus: () => deliveryStatusRepository(records),
  subscribers: () => subscriberRepository(records),
  notifications: () => notificationRepository(records),
  traces: () => traceRepository(records),
});

/** The repositories over `records`, each made when first used. */
export function recordRepositories(records: RecordStore): RecordRepositories {
  return lazyMembers(recordMakers(records));
}

/**
 * The deletes whose rows own others, each one atomic step with those: a subscriber's deletion takes
 * its preferences and topic memberships, and a message's deletion (by the subscriber, a retry, or the
 * sweeper) the provider references that point to it.
 */
function cascading(backendAtomically: Atomically): { subscriberDelete: SubscriberRepository['delete']; messagesDelete: MessageRepository['deleteMany']; sweep: (env: string, sweep: MessageSweep, limit: number) => Promise<Message[]> } {
  const atomically = <T>(fn: (kernel: KernelRepositories, records: RecordStore) => Promise<T>) => backendAtomically((kernel, records) => fn(kernel, recordStoreOver(records)));
  return {
    subscriberDelete: (env, subscriberId) =>
      atomically(async (kernel, records) => {
        const subscribers = subscriberRepository(records);
        const [subscriber] = await subscribers.getMany(env, [subscriberId]);
        if (!subscriber || !(await subscribers.delete(env, subscriberId))) return false;
        await deletePreferencesOf(records, env, subscriberId);
        await kernel.topics.removeMembers(env, null, [subscriberId]);
        await records.deleteWhere(env, TOPIC_SUBSCRIPTIONS, { i2: subscriber._id });
        return true;
      }),
    messagesDelete: (env, subscriberInternalId, ids) =>
      atomically(async (kernel, records) => {
        const deleted = await kernel.messages.deleteMany(env, subscriberInternalId, ids);
        await deleteProviderRefs(records, env, ids, subscriberInternalId);
        return deleted;
      }),
    sweep: (env, which, limit) =>
      atomically(async (kernel, records) => {
        const deleted = await kernel.retention.deleteMessages(env, which, limit);
        await deleteProviderRefs(records, env, deleted.map((m) => m._id));
        return deleted;
      }),
  };
}

/**
 * A backend's repositories whole: its kernel, its record store, and core's repositories over both.
 * An adapter builds them once outside transactions and once in each, with the record store of the
 * same connection or transaction and how to run calls atomically there, and wraps the result as it
 * wraps any repository.
 */
export function storageRepositories(kernel: KernelRepositories, backend: RecordBackend, atomically: Atomically): StorageRepositories {
  const records = recordStoreOver(backend);
  const owned = cascading(atomically);
  // Made for every transaction: each repository only when the transaction first uses it.
  const jobs = () => jobRepository(kernel.jobs);
  const made = recordMakers(records);
  return lazyMembers<StorageRepositories>({
    ...made,
    records: () => records,
    jobs,
    subscribers: () => ({ ...made.subscribers(), delete: owned.subscriberDelete }),
    messages: () => ({ ...messageRepository(kernel.messages), deleteMany: owned.messagesDelete }),
    topics: () => topicRepository(records, kernel.topics),
    retention: () => ({
      nextExpiry: (env) => kernel.retention.nextExpiry(env),
      deleteNotificationsBefore: (env, before, limit) => deleteNotificationsBefore(records, jobs(), env, before, limit),
      deleteExpiredMessages: (env, now, limit) => owned.sweep(env, { expiredAt: now }, limit),
      deleteMessagesBefore: (env, before, limit) => owned.sweep(env, { createdBefore: before }, limit),
      ...webhookRetention(records),
    }),
  });
}
