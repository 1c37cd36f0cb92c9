import type { RecordStore } from './record-store.js';
import type { Message } from '../schemas/index.js';
import type { MessageRepository, RetentionRepository, StorageRepositories, SubscriberRepository, TopicMemberRepository } from '../storage.js';
import { deleteProviderRefs, deliveryStatusRepository } from './delivery-status.js';
import { digestRepository } from './digests.js';
import { frequencyRepository } from './frequency.js';
import { idempotencyRepository } from './idempotency.js';
import { integrationRepository } from './integrations.js';
import { deletePreferencesOf, preferenceRepository } from './preferences.js';
import { settingsRepository } from './settings.js';
import { suppressionRepository } from './suppressions.js';
import { tenantRepository } from './tenants.js';
import { topicRepository } from './topics.js';
import { webhookRepository, webhookRetention } from './webhooks.js';
import { workflowRepository } from './workflows.js';

/** The repositories core keeps in the record store: a backend implements none of them. */
export type RecordRepositories = Pick<
  StorageRepositories,
  'workflows' | 'tenants' | 'integrations' | 'preferences' | 'settings' | 'idempotency' | 'suppressions' | 'webhooks' | 'frequency' | 'digests' | 'deliveryStatus'
>;

/** What core's repositories over the record store add to the sweeper's (the outbox's deliveries). */
type RecordRetention = Pick<RetentionRepository, 'deleteDeliveriesBefore'>;

/** What a backend implements itself besides the record store: everything else. */
export type KernelRepositories = Omit<StorageRepositories, keyof RecordRepositories | 'records' | 'retention' | 'topics'> & {
  readonly retention: Omit<RetentionRepository, keyof RecordRetention>;
  readonly topics: TopicMemberRepository;
};

/**
 * Runs `fn` with the backend's repositories and record store so that its calls commit together or
 * not at all: inside a transaction, that transaction's; outside one, a new transaction's (or the
 * ones at hand, where every call outside a transaction runs alone and is undone whole, as in memory).
 */
export type Atomically = <T>(fn: (kernel: KernelRepositories, records: RecordStore) => Promise<T>) => Promise<T>;

/** The repositories over `records`. */
export function recordRepositories(records: RecordStore): RecordRepositories {
  return {
    workflows: workflowRepository(records),
    tenants: tenantRepository(records),
    integrations: integrationRepository(records),
    preferences: preferenceRepository(records),
    settings: settingsRepository(records),
    idempotency: idempotencyRepository(records),
    suppressions: suppressionRepository(records),
    webhooks: webhookRepository(records),
    frequency: frequencyRepository(records),
    digests: digestRepository(records),
    deliveryStatus: deliveryStatusRepository(records),
  };
}

/**
 * The backend's deletes whose rows own records: each runs with the deletion of those records in one
 * atomic step. A subscriber's deletion takes its preferences, and a message's deletion (by the
 * subscriber, a retry, or the sweeper) the provider references that point to it.
 */
function cascading(kernel: KernelRepositories, atomically: Atomically): { subscribers: SubscriberRepository; messages: MessageRepository; retention: KernelRepositories['retention'] } {
  /** A sweep of messages with their references (message ids are unique in an environment). */
  const sweep = (take: (retention: KernelRepositories['retention']) => Promise<Message[]>, env: string) =>
    atomically(async (own, records) => {
      const deleted = await take(own.retention);
      await deleteProviderRefs(records, env, deleted.map((m) => m._id));
      return deleted;
    });
  return {
    subscribers: {
      ...kernel.subscribers,
      delete: (env, subscriberId) =>
        atomically(async (own, records) => {
          await deletePreferencesOf(records, env, subscriberId);
          return own.subscribers.delete(env, subscriberId);
        }),
    },
    messages: {
      ...kernel.messages,
      deleteMany: (env, subscriberInternalId, ids) =>
        atomically(async (own, records) => {
          const deleted = await own.messages.deleteMany(env, subscriberInternalId, ids);
          await deleteProviderRefs(records, env, ids, subscriberInternalId);
          return deleted;
        }),
    },
    retention: {
      ...kernel.retention,
      deleteExpiredMessages: (env, now, limit) => sweep((retention) => retention.deleteExpiredMessages(env, now, limit), env),
      deleteMessagesBefore: (env, before, limit) => sweep((retention) => retention.deleteMessagesBefore(env, before, limit), env),
    },
  };
}

/**
 * A backend's repositories whole: its own, its record store, and core's repositories over that
 * store. An adapter builds them once outside transactions and once in each, with the record store
 * of the same connection or transaction and how to run calls atomically there, and wraps the result
 * as it wraps any repository.
 */
export function storageRepositories(kernel: KernelRepositories, records: RecordStore, atomically: Atomically): StorageRepositories {
  const own = cascading(kernel, atomically);
  return {
    ...kernel,
    records,
    ...recordRepositories(records),
    subscribers: own.subscribers,
    messages: own.messages,
    topics: topicRepository(records, kernel.topics),
    retention: { ...own.retention, ...webhookRetention(records) },
  };
}
