import type { RecordStore } from '../records/record-store.js';
import type { JobRepository } from '../storage.js';
import { deleteOwnedDigests, openDigestTransactions } from '../records/digests.js';
import { deleteNotifications, notificationSort, notificationsBefore } from '../records/notifications.js';
import { deleteTraces } from '../records/traces.js';

/**
 * The notifications created before `before` whose walk is over (no job of their trigger left, no
 * event of it in an open digest), oldest first, `limit` at most; deleted with their decision records
 * and the closed digests whose first event they are. Returns their transactionIds.
 */
export async function deleteNotificationsBefore(records: RecordStore, jobs: Pick<JobRepository, 'list'>, env: string, before: string, limit: number): Promise<string[]> {
  const inDigests = await openDigestTransactions(records, env);
  const doomed: string[] = [];
  let after: string | undefined;
  while (doomed.length < limit) {
    const page = await notificationsBefore(records, env, before, limit, after);
    for (const n of page) {
      if (doomed.length === limit) break;
      if (!inDigests.has(n.transactionId) && (await jobs.list(env, { transactionId: n.transactionId })).length === 0) doomed.push(n.transactionId);
    }
    if (page.length < limit) break;
    after = notificationSort(page[page.length - 1]!);
  }
  // The traces first: a notification names its call's trace record.
  await deleteTraces(records, env, doomed);
  await deleteNotifications(records, env, doomed);
  await deleteOwnedDigests(records, env, doomed);
  return doomed;
}

