import { newId } from '../ids.js';
import type { DigestMetadata, Notification, Subscriber, Workflow } from '../schemas/index.js';
import type { StorageRepositories } from '../storage.js';
import { backoffLetsThrough, digestDueAt, usesBackoff } from '../timing/digest-due-at.js';
import { delayOverride, type Delivery } from '../trigger/walk-steps.js';
import { readPath } from '../util/path.js';

/** A walk that reached a digest step: what joining needs, decided inside the batch's commit. */
export interface DigestArrival {
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly stepIndex: number;
  readonly step: Delivery['step'];
}

export type DigestSettled =
  | { kind: 'through'; reason: string }
  | { kind: 'joined'; reason: string }
  | { kind: 'opened'; reason: string; dueAt: Date; digestId: string };

/** The key of the open digest an event joins: workflow, step, subscriber and the digestKey's value. */
export function digestKeyOf(arrival: DigestArrival, metadata: DigestMetadata): { key: string; digestKey: string | null } {
  const keyPath = metadata.digestKey;
  const keyValue = keyPath ? readPath(arrival.notification.payload, keyPath) : undefined;
  const digestKey = keyPath === undefined ? null : keyValue === undefined ? null : JSON.stringify(keyValue);
  // JSON keeps a missing value (null) apart from any value, and has no NUL byte Postgres would refuse.
  return { key: JSON.stringify([arrival.workflow._id, arrival.stepIndex, arrival.subscriber.subscriberId, keyPath ?? null, digestKey]), digestKey };
}

/**
 * Joins or opens the digest of a digest step, or lets a backoff event through, inside the batch's
 * transaction. Times are the event's trigger time, not when its job happens to run, so a backlog
 * never splits a window; both storage calls are keyed by the event, so a re-run changes nothing.
 */
export async function settleDigest(tx: StorageRepositories, env: string, arrival: DigestArrival, now: Date): Promise<DigestSettled> {
  const { notification, subscriber, workflow } = arrival;
  const metadata = (arrival.step.metadata ?? { type: 'regular' }) as DigestMetadata;
  const zone = subscriber.timezone ?? 'UTC';
  const eventAt = new Date(notification.createdAt);
  const { key, digestKey } = digestKeyOf(arrival, metadata);
  const previous = usesBackoff(metadata) ? await tx.digests.touch(env, key, notification.createdAt, notification.transactionId) : null;
  if (backoffLetsThrough(metadata, previous, eventAt, zone)) return { kind: 'through', reason: 'no event of this digest within the backoff window: sent at once' };
  const dueAt = digestDueAt(metadata, { openedAt: eventAt, now: eventAt, timeZone: zone, override: delayOverride(notification.overrides) });
  if (!dueAt) return { kind: 'through', reason: 'the timed digest never fires: sent at once' };
  const { digest, opened } = await tx.digests.join(
    env,
    { id: newId(now), environmentId: env, key, workflowId: workflow._id, stepIndex: arrival.stepIndex, subscriberId: subscriber.subscriberId, digestKey, openedAt: notification.createdAt, dueAt: dueAt.toISOString() },
    { transactionId: notification.transactionId, notificationId: notification._id, payload: notification.payload, at: notification.createdAt },
    metadata.type !== 'timed' && metadata.updateMode ? dueAt.toISOString() : undefined,
  );
  if (opened) return { kind: 'opened', reason: `opened a digest due ${digest.dueAt}`, dueAt: new Date(digest.dueAt), digestId: digest.id };
  return { kind: 'joined', reason: `joined the digest due ${digest.dueAt} (${digest.eventCount} events)` };
}
