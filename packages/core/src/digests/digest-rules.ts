import type { Digest, DigestEvent, DigestHead, StorageRepositories } from '../storage.js';

type Digests = StorageRepositories['digests'];

/**
 * Adds the event to the open digest of `open.key`, or opens one with `open` when none is open. When
 * `moveDueAt` is given (debounce) and later than a joined digest's `dueAt`, it becomes the due time.
 * Keyed by the event: when this `transactionId` already joined a digest of the key (open or closed),
 * nothing changes and the answer is the first one's (that digest, `opened` when the event is its
 * first). Costs the same however many events the digest holds. Run inside `transaction`: concurrent
 * joins then never open two digests for a key nor lose an event.
 */
export async function joinDigest(
  digests: Digests,
  env: string,
  open: Omit<Digest, 'events' | 'status'>,
  event: DigestEvent,
  moveDueAt?: string,
): Promise<{ digest: DigestHead; opened: boolean }> {
  const joined = await digests.membership(env, open.key, event.transactionId);
  if (joined) {
    const digest = await digests.head(env, joined.digestId);
    if (digest) return { digest, opened: joined.first };
  }
  const current = await digests.openHead(env, open.key);
  if (!current) {
    await digests.insertOpen(env, open, event);
    return { digest: { ...open, status: 'open', eventCount: 1 }, opened: true };
  }
  const dueAt = moveDueAt !== undefined && moveDueAt > current.dueAt ? moveDueAt : current.dueAt;
  await digests.append(env, current.id, open.key, event, dueAt);
  return { digest: { ...current, dueAt, eventCount: current.eventCount + 1 }, opened: false };
}

/**
 * Records event `transactionId` of `key` at `at` (for backoff) and returns the time of the latest
 * event recorded before it, or null. Keyed by the event: recording the same `transactionId` again as
 * the latest changes nothing and returns the same answer. An event older than the latest leaves the
 * latest time as it is. Run inside `transaction`.
 */
export async function touchDigestKey(digests: Digests, env: string, key: string, at: string, transactionId: string): Promise<string | null> {
  const last = await digests.lastEvent(env, key);
  if (last?.transactionId === transactionId) return last.previous;
  const previous = last?.at ?? null;
  await digests.putLastEvent(env, key, { at: previous === null || at > previous ? at : previous, transactionId, previous });
  return previous;
}
