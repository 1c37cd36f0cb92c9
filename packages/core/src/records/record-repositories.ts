import type { RecordStore } from './record-store.js';
import type { RetentionRepository, StorageRepositories, TopicMemberRepository } from '../storage.js';
import { digestRepository } from './digests.js';
import { frequencyRepository } from './frequency.js';
import { idempotencyRepository } from './idempotency.js';
import { integrationRepository } from './integrations.js';
import { deletingPreferences, preferenceRepository } from './preferences.js';
import { settingsRepository } from './settings.js';
import { suppressionRepository } from './suppressions.js';
import { tenantRepository } from './tenants.js';
import { topicRepository } from './topics.js';
import { webhookRepository, webhookRetention } from './webhooks.js';
import { workflowRepository } from './workflows.js';

/** The repositories core keeps in the record store: a backend implements none of them. */
export type RecordRepositories = Pick<StorageRepositories, 'workflows' | 'tenants' | 'integrations' | 'preferences' | 'settings' | 'idempotency' | 'suppressions' | 'webhooks' | 'frequency' | 'digests'>;

/** What core's repositories over the record store add to the sweeper's (the outbox's deliveries). A subscriber's deletion takes its preferences too. */
type RecordRetention = Pick<RetentionRepository, 'deleteDeliveriesBefore'>;

/** What a backend implements itself besides the record store: everything else. */
export type KernelRepositories = Omit<StorageRepositories, keyof RecordRepositories | 'records' | 'retention' | 'topics'> & {
  readonly retention: Omit<RetentionRepository, keyof RecordRetention>;
  readonly topics: TopicMemberRepository;
};

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
  };
}

/**
 * A backend's repositories whole: its own, its record store, and core's repositories over that
 * store. An adapter builds them once outside transactions and once in each, with the record store
 * of the same connection or transaction, and wraps the result as it wraps any repository.
 */
export function storageRepositories(kernel: KernelRepositories, records: RecordStore): StorageRepositories {
  return {
    ...kernel,
    records,
    ...recordRepositories(records),
    subscribers: deletingPreferences(kernel.subscribers, records),
    topics: topicRepository(records, kernel.topics),
    retention: { ...kernel.retention, ...webhookRetention(records) },
  };
}
