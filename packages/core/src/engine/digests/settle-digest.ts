import { cadenceNote, chooseCadence } from '../../digests/cadence-choice.js';
import { joinDigest, touchDigestKey } from '../../digests/digest-rules.js';
import { newId } from '../../ids.js';
import type { DigestMetadata, Notification, Subscriber, WalkState, Workflow } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { backoffLetsThrough, digestDueAt, usesBackoff } from '../../timing/digest-due-at.js';
import { delayOverride } from '../../timing/delay-override.js';
import type { Delivery } from '../../walk/walker.js';
import type { TraceEntry } from '../../walk/trace.js';
import type { Job } from '../../schemas/index.js';
import { digestFlushKey, newJob } from '../runtime/jobs.js';
import { readPath } from '../../util/path.js';

/** A walk that reached a digest step: what joining needs, decided inside the batch's commit. */
export interface DigestArrival {
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly stepIndex: number;
  readonly step: Delivery['step'];
  /** A code workflow's steps that ran before the digest: the flush goes on from the owner's. */
  readonly state?: WalkState;
  /** The id of the digest cadence the subscriber chose for the workflow (preference digests). */
  readonly cadenceChoice?: string | undefined;
}

export type DigestSettled =
  | { kind: 'through'; reason: string }
  | { kind: 'joined'; reason: string; dueAt: Date; digestId: string; moved: boolean }
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
 * never splits a window; the join and the backoff record are keyed by the event, so a re-run changes nothing.
 */
export async function settleDigest(tx: StorageRepositories, env: string, arrival: DigestArrival, now: Date): Promise<DigestSettled> {
  const { notification, subscriber, workflow } = arrival;
  const metadata = (arrival.step.metadata ?? { type: 'regular' }) as DigestMetadata;
  const zone = subscriber.timezone ?? 'UTC';
  const eventAt = new Date(notification.createdAt);
  const { key, digestKey } = digestKeyOf(arrival, metadata);
  const previous = usesBackoff(metadata) ? await touchDigestKey(tx.digests, env, key, notification.createdAt, notification.transactionId) : null;
  if (backoffLetsThrough(metadata, previous, eventAt, zone)) return { kind: 'through', reason: 'no event of this digest within the backoff window: sent at once' };
  // A cadence applies from the window it opens: an open digest keeps its due time, even when the subscriber's choice is now `instant`.
  const cadence = metadata.type === 'preference' ? chooseCadence(metadata, arrival.cadenceChoice) : null;
  const note = cadence ? `${cadenceNote(cadence, zone)}; ` : '';
  const instant = cadence?.choice.cadence === 'instant';
  if (instant && !(await tx.digests.openHead(env, key))) return { kind: 'through', reason: `${note}sent at once` };
  const dueAt = instant ? eventAt : digestDueAt(metadata, { openedAt: eventAt, now: eventAt, timeZone: zone, override: delayOverride(notification.overrides), cadenceChoice: arrival.cadenceChoice });
  if (!dueAt) return { kind: 'through', reason: 'the timed digest never fires: sent at once' };
  const moveDueAt = (metadata.type === 'regular' || metadata.type === 'backoff') && metadata.updateMode ? dueAt.toISOString() : undefined;
  const { digest, opened } = await joinDigest(
    tx.digests,
    env,
    { id: newId(now), environmentId: env, key, workflowId: workflow._id, stepIndex: arrival.stepIndex, subscriberId: subscriber.subscriberId, digestKey, openedAt: notification.createdAt, dueAt: dueAt.toISOString() },
    { transactionId: notification.transactionId, notificationId: notification._id, payload: notification.payload, at: notification.createdAt, ...(arrival.state && { walkState: arrival.state }) },
    moveDueAt,
  );
  if (opened) return { kind: 'opened', reason: `${note}opened a digest due ${digest.dueAt}`, dueAt: new Date(digest.dueAt), digestId: digest.id };
  const joined = `joined the digest due ${digest.dueAt} (${digest.eventCount} events)${cadence ? ', which keeps its due time: the cadence applies from the next window' : ''}`;
  return { kind: 'joined', reason: `${note}${joined}`, dueAt: new Date(digest.dueAt), digestId: digest.id, moved: moveDueAt !== undefined };
}

/**
 * A walk that reached a digest step, settled inside the batch's commit: the digest step's trace
 * entry and the jobs that carry on. Opening a digest queues its flush job, keyed by the digest; a
 * debounced join moves that job to the digest's new due time; an event let through walks on at once.
 */
export async function settleArrival(tx: StorageRepositories, env: string, arrival: DigestArrival, now: Date): Promise<{ entry: TraceEntry; enqueue: Job[] }> {
  const settled = await settleDigest(tx, env, arrival, now);
  const { notification, subscriber, stepIndex, step } = arrival;
  const entry: TraceEntry = { stepIndex, stepId: step._id ?? String(stepIndex), type: 'digest', decision: settled.kind === 'through' ? 'delivered' : 'delayed', reason: settled.reason };
  const common = { env, runAt: now.toISOString(), subscriberId: subscriber.subscriberId };
  if (settled.kind === 'through') {
    const data = { notificationId: notification._id, stepIndex: stepIndex + 1, passedDigest: true, ...(arrival.state && { state: arrival.state }) };
    return { entry, enqueue: [newJob({ ...common, kind: 'walk', transactionId: notification.transactionId, data }, now)] };
  }
  if (settled.kind === 'joined' && !settled.moved) return { entry, enqueue: [] };
  // The flush job belongs to the digest, not to one event: cancelling its first event leaves it.
  const key = digestFlushKey(settled.digestId);
  return { entry, enqueue: [newJob({ ...common, runAt: settled.dueAt.toISOString(), kind: 'digest', key, transactionId: key, priority: 'bulk', data: { digestId: settled.digestId } }, now)] };
}
