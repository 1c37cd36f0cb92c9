import type { DebounceRecord } from '../../debounce/debounce-burst.js';
import type { Recipient } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { DEBOUNCES, debounceJobKey, putDebounces } from '../debounce/debounce-records.js';
import { scanRecords } from './scan-keys.js';

/** The subscriber a recipient names directly, if any. */
const namedBy = (recipient: Recipient): string | null =>
  typeof recipient === 'string' ? recipient.trim() : recipient.type === 'Topic' ? null : recipient.subscriberId;

/**
 * Debounced bursts waiting to run an event that names the subscriber (in `to`, or as its actor): a
 * burst for them alone is cancelled; one for others too runs without them. Returns how many went.
 */
export async function eraseFromBursts(tx: StorageRepositories, env: string, subscriberId: string): Promise<number> {
  const names = (burst: DebounceRecord) => {
    const to = 'to' in burst.event ? burst.event.to : [];
    const list = Array.isArray(to) ? to : [to];
    const actor = burst.event.actor;
    return list.some((r) => namedBy(r) === subscriberId) || (typeof actor === 'string' ? actor === subscriberId : actor?.subscriberId === subscriberId);
  };
  const bursts = (await scanRecords(tx.records, env, DEBOUNCES, (r) => names(r.doc as DebounceRecord))).map((r) => r.doc as DebounceRecord);
  const gone: DebounceRecord[] = [];
  const kept: DebounceRecord[] = [];
  for (const burst of bursts) {
    const to = 'to' in burst.event ? (Array.isArray(burst.event.to) ? burst.event.to : [burst.event.to]) : [];
    const others = to.filter((r) => namedBy(r) !== subscriberId);
    const { actor, ...event } = burst.event;
    const keptActor = actor === undefined || (typeof actor === 'string' ? actor === subscriberId : actor.subscriberId === subscriberId) ? {} : { actor };
    if ('to' in burst.event && others.length === 0) gone.push(burst);
    else kept.push({ ...burst, event: { ...event, ...keptActor, ...('to' in burst.event && { to: others }) } as DebounceRecord['event'] });
  }
  if (gone.length > 0) {
    await tx.records.delete(env, DEBOUNCES, gone.map((b) => b.group));
    for (const burst of gone) await tx.jobs.cancelByTransaction(env, debounceJobKey(burst.group));
  }
  if (kept.length > 0) await putDebounces(tx.records, env, kept);
  return gone.length;
}
