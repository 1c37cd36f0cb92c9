import type { DecisionRecord } from '../../schemas/decision-record.js';
import type { RecordStore, StoredRecord } from '../../records/record-store.js';
import { keepOnly, recordsOf, TRACES, type TraceDoc } from '../../records/traces.js';

/** Trace records read per page of the scan of shared records. */
const PAGE = 500;

/**
 * Every decision record of one subscriber, and the trace records that hold them. A record of one
 * subscriber is found by its third index value; a record shared by several (a fan-out's batch, `*`)
 * has no index by subscriber, so those are read a page at a time, in key order, with flat memory: a
 * bounded scan, one pass over the environment's shared trace records (the retention policy bounds
 * them). An index per subscriber and run would cost every fan-out a write per member; erase is rare.
 */
export async function subscriberTraces(records: RecordStore, env: string, subscriberId: string): Promise<{ own: StoredRecord[]; shared: StoredRecord[]; decisions: DecisionRecord[] }> {
  const own = await records.find(env, TRACES, { i3: subscriberId });
  const shared: StoredRecord[] = [];
  for (let after: { sort: string; key: string } | undefined; ; ) {
    const page = await records.find(env, TRACES, { i3: '*', limit: PAGE, ...(after && { after }) });
    for (const record of page) if (recordsOf(record.doc as TraceDoc, env, record.i1 ?? '').some((r) => r.subscriberId === subscriberId)) shared.push(record);
    if (page.length < PAGE) break;
    const last = page[page.length - 1]!;
    after = { sort: last.sort, key: last.key };
  }
  const decisions = [...own, ...shared].flatMap((record) => recordsOf(record.doc as TraceDoc, env, record.i1 ?? '').filter((r) => r.subscriberId === subscriberId));
  decisions.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { own, shared, decisions };
}

/**
 * Removes the subscriber's decision records: their own trace records go, shared ones are written
 * again without their part (a record left with no one's part goes). Returns how many decision
 * records went, and the triggers they were of.
 */
export async function eraseSubscriberTraces(records: RecordStore, env: string, subscriberId: string): Promise<{ removed: number; transactionIds: Set<string> }> {
  const { own, shared, decisions } = await subscriberTraces(records, env, subscriberId);
  const transactionIds = new Set(decisions.map((d) => d.transactionId));
  if (own.length > 0) await records.delete(env, TRACES, own.map((r) => r.key));
  await keepOnly(records, env, shared, (r) => r.subscriberId !== subscriberId);
  return { removed: decisions.length, transactionIds };
}
