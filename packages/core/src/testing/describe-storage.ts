import { afterEach, beforeEach, describe } from 'vitest';
import type { Storage } from '../storage.js';
import { cadenceSuite } from './suite/cadence.js';
import { catalogSuite } from './suite/catalog.js';
import { digestsSuite } from './suite/digests.js';
import { idempotencySuite } from './suite/idempotency.js';
import { engineSuite } from './suite/engine.js';
import { faultsSuite } from './suite/faults.js';
import { reliabilitySuite } from './suite/reliability.js';
import { jobsSuite } from './suite/jobs.js';
import { messagesSuite } from './suite/messages.js';
import { notificationsSuite } from './suite/notifications.js';
import { peopleSuite } from './suite/people.js';
import { transactionsSuite } from './suite/transactions.js';
import { webhooksSuite } from './suite/webhooks.js';
import { expirySuite } from './suite/expiry.js';
import { debounceSuite } from './suite/debounce.js';
import { fairnessSuite } from './suite/fairness.js';
import { frequencySuite } from './suite/frequency.js';
import { retrySuite } from './suite/retry.js';
import { countsSuite } from './suite/counts.js';
import { groupCommitSuite } from './suite/group-commit.js';
import { statusCallbacksSuite } from './suite/status-callbacks.js';
import { unitsOfWorkSuite } from './suite/units-of-work.js';
import { webhookLaneSuite } from './suite/webhook-lane.js';
import { recordsSuite } from './suite/records.js';
import { emailLookSuite } from './suite/email-look.js';
import { emailSendingSuite } from './suite/email-sending.js';
import { categoriesSuite } from './suite/categories.js';
import { contextsSuite } from './suite/contexts.js';
import { topicSubscriptionsSuite } from './suite/topic-subscriptions.js';
import { revisionsSuite } from './suite/revisions.js';
import { activitySuite } from './suite/activity.js';
import { operatingSuite } from './suite/operating.js';
import { flowStepsSuite } from './suite/flow-steps.js';
import { waitsSuite } from './suite/waits.js';
import type { StorageUnderTest, SuiteContext } from './storage-under-test.js';

export type { StorageUnderTest, SuiteContext } from './storage-under-test.js';

/**
 * Which part of the contract to run: `all`, or the fault scenarios (`faults`) and everything else
 * (`contract`) apart, so a slow backend runs them in two test files at once.
 */
export type ConformancePart = 'all' | 'contract' | 'faults';

/**
 * The whole Storage contract as vitest tests. Every storage adapter runs it in one short test file:
 * `describeStorage('sqlite', { create: () => sqliteStorage({ filename: ':memory:' }) })`.
 */
export function describeStorage(name: string, backend: StorageUnderTest, part: ConformancePart = 'all'): void {
  describe(`storage conformance: ${name}${part === 'all' ? '' : ` (${part})`}`, () => {
    let storage: Storage | null = null;
    beforeEach(async () => {
      storage = await backend.create();
    });
    afterEach(async () => {
      if (storage) await (backend.destroy ? backend.destroy(storage) : storage.close());
      storage = null;
    });
    const context: SuiteContext = {
      backend,
      get: () => {
        if (!storage) throw new Error('storage is only available inside a test');
        return storage;
      },
    };
    if (part === 'faults') {
      faultsSuite({ ...context, name });
      return;
    }
    recordsSuite(context);
    catalogSuite(context);
    peopleSuite(context);
    notificationsSuite(context);
    jobsSuite(context);
    messagesSuite(context);
    transactionsSuite(context);
    groupCommitSuite(context);
    unitsOfWorkSuite(context);
    frequencySuite(context);
    waitsSuite(context);
    digestsSuite(context);
    cadenceSuite(context);
    idempotencySuite(context);
    webhooksSuite(context);
    operatingSuite(context);
    webhookLaneSuite(context);
    expirySuite(context);
    countsSuite(context);
    engineSuite(context);
    statusCallbacksSuite(context);
    emailLookSuite(context);
    emailSendingSuite(context);
    categoriesSuite(context);
    contextsSuite(context);
    debounceSuite(context);
    fairnessSuite(context);
    topicSubscriptionsSuite(context);
    revisionsSuite(context);
    activitySuite(context);
    flowStepsSuite(context);
    retrySuite(context);
    reliabilitySuite(context);
    if (part === 'all') faultsSuite({ ...context, name });
  });
}
