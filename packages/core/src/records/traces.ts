import type { RecordInput, RecordStore, StoredRecord } from './record-store.js';
import type { DecisionRecord } from '../schemas/decision-record.js';
import type { TraceRepository } from '../storage.js';
import { NOTIFICATIONS } from './notifications.js';

export const TRACES = 'traces';
const TABLE = TRACES;
/**
 * One record per (subscriber, trigger) whose decisions skipped a channel step: the index by
 * subscriber the traces do not have (a fan-out's records are stored as one run under the trigger).
 */
export const SKIPS = 'skips';

const CHANNEL_TYPES: ReadonlySet<string> = new Set(['in_app', 'email', 'sms', 'chat', 'push']);
const skipsAChannel = (record: DecisionRecord) => record.entries.some((e) => e.decision === 'skipped' && CHANNEL_TYPES.has(e.type));

/**
 * Consecutive records that differ only in their subscriber and job (and, in a call's record, their
 * trigger: then each `who` names it third).
 */
export interface TraceRun {
  readonly at: string;
  readonly revision?: number | string;
  readonly entries: DecisionRecord['entries'];
  readonly who: [subscriberId: string, jobId: string, transactionId?: string][];
}

/**
 * Records written together, as runs: a topic fan-out's batch of a thousand identical decisions is
 * one run, about a tenth of the bytes of a thousand records. Records of several triggers (a call's)
 * name their trigger in each `who`, as does a call's record (`nameTriggers`), whose key names none.
 */
export function runsOf(records: readonly DecisionRecord[], nameTriggers = records.some((r) => r.transactionId !== records[0]!.transactionId)): { runs: TraceRun[] } {
  const who = (r: DecisionRecord): TraceRun['who'][number] => (nameTriggers ? [r.subscriberId, r.jobId, r.transactionId] : [r.subscriberId, r.jobId]);
  const runs: TraceRun[] = [];
  let last: { run: TraceRun; entries: string | null } | undefined;
  for (const record of records) {
    // The entries are compared as text only when the instant matches (never for a record alone).
    if (last && last.run.at === record.at && last.run.revision === record.revision && (last.entries ??= JSON.stringify(last.run.entries)) === JSON.stringify(record.entries)) {
      last.run.who.push(who(record));
      continue;
    }
    const run: TraceRun = { at: record.at, ...(record.revision !== undefined && { revision: record.revision }), entries: record.entries, who: [who(record)] };
    runs.push(run);
    last = { run, entries: null };
  }
  return { runs };
}

/** What one record holds: runs, or (stored before runs) one decision record or a list of them. */
export type TraceDoc = { runs: TraceRun[] } | DecisionRecord | DecisionRecord[];

export function recordsOf(doc: TraceDoc, env: string, transactionId: string): DecisionRecord[] {
  if (Array.isArray(doc)) return doc;
  if (!('runs' in doc)) return [doc];
  return doc.runs.flatMap((run) => run.who.map(([subscriberId, jobId, ofTrigger]) => ({ environmentId: env, transactionId: ofTrigger ?? transactionId, subscriberId, jobId, at: run.at, ...(run.revision !== undefined && { revision: run.revision }), entries: run.entries })));
}

/**
 * Keys grow in the order this process appends (a clock that never goes back, then a counter), so
 * records of one instant read back in append order, and each is written at the end of the key index
 * (a key led by the random transactionId was a page write of its own per record); the random tail
 * keeps processes apart.
 */
const PROCESS = Math.random().toString(36).slice(2, 8);
let appended = 0;
const appendKey = () => `${process.hrtime.bigint().toString().padStart(20, '0')}${(appended++ % 1e6).toString().padStart(6, '0')}${PROCESS}`;

/** The key a trigger call's decision records are stored under (see `TraceRepository.appendCall`), made before its notifications. */
export const newCallTraceKey = appendKey;

/** The subscriber a record of these decisions is found by, or `*` when they are several subscribers'. */
const subscriberOf = (decisions: readonly DecisionRecord[]) => (decisions.every((r) => r.subscriberId === decisions[0]!.subscriberId) ? decisions[0]!.subscriberId : '*');

/** The call records named by these triggers' notifications (by their third index value). */
async function callRecordsOf(records: RecordStore, env: string, transactionIds: readonly string[]) {
  const keys = [...new Set((await records.get(env, NOTIFICATIONS, transactionIds)).flatMap((n) => (n.i3 ? [n.i3] : [])))];
  return keys.length === 0 ? [] : records.get(env, TABLE, keys);
}

/** Indexes the decisions that skipped a channel step by subscriber (`skippedFor`). */
async function putSkips(records: RecordStore, decisions: readonly DecisionRecord[]): Promise<void> {
  const skips = new Map<string, RecordInput[]>();
  for (const r of decisions) {
    if (!skipsAChannel(r)) continue;
    const skip = { key: `${r.subscriberId}\u0001${r.transactionId}`, i1: r.subscriberId, i2: r.transactionId, sort: r.at, doc: {} };
    const same = skips.get(r.environmentId);
    if (same) same.push(skip);
    else skips.set(r.environmentId, [skip]);
  }
  for (const [env, batch] of skips) await records.put(env, SKIPS, batch);
}

/**
 * Decision records, one record per trigger per append, read by trigger (the first index value) in
 * key order and sorted by instant here; the subscriber, or `*` when the append holds several, is the
 * third value (filtered among a trigger's few records, so not indexed). A trigger call's walks are
 * one record of several triggers (`appendCall`), without a first value: each trigger's notification
 * names it.
 */
export function traceRepository(records: RecordStore): TraceRepository {
  return {
    async append(decisions) {
      const groups = new Map<string, DecisionRecord[]>();
      for (const r of decisions) {
        const key = `${r.environmentId}\u0001${r.transactionId}`;
        const group = groups.get(key);
        if (group) group.push(r);
        else groups.set(key, [r]);
      }
      const byEnv = new Map<string, RecordInput[]>();
      for (const group of groups.values()) {
        const first = group[0]!;
        const record = { key: appendKey(), i1: first.transactionId, i3: subscriberOf(group), doc: runsOf(group) };
        const same = byEnv.get(first.environmentId);
        if (same) same.push(record);
        else byEnv.set(first.environmentId, [record]);
      }
      for (const [env, batch] of byEnv) await records.put(env, TABLE, batch);
      await putSkips(records, decisions);
    },
    async appendCall(key, decisions) {
      if (decisions.length === 0) return;
      // One record for the call's triggers: a bulk call's hundred records are one row, found through the notifications that name it.
      await records.put(decisions[0]!.environmentId, TABLE, [{ key, i3: subscriberOf(decisions), doc: runsOf(decisions, true) }]);
      await putSkips(records, decisions);
    },
    async skippedFor(env, subscriberId, { since, limit }) {
      const rows = await records.find(env, SKIPS, { i1: subscriberId, ...(since !== undefined && { sort: { gte: since } }), order: 'desc', limit });
      return rows.map((row) => ({ transactionId: row.i2 ?? '', at: row.sort }));
    },
    async list(env, transactionId, subscriberId) {
      const own = await records.find(env, TABLE, { i1: transactionId, ...(subscriberId !== undefined && { i3: [subscriberId, '*'] }) });
      const rows = [...own, ...(await callRecordsOf(records, env, [transactionId]))].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const found = rows.flatMap((row) => recordsOf(row.doc as TraceDoc, env, row.i1 ?? '')).filter((r) => r.transactionId === transactionId && (subscriberId === undefined || r.subscriberId === subscriberId));
      found.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
      return found;
    },
  };
}

/** Whether any decision record of this trigger is stored. */
export async function hasTraces(records: RecordStore, env: string, transactionId: string): Promise<boolean> {
  if ((await records.count(env, TABLE, { i1: transactionId })) > 0) return true;
  return (await callRecordsOf(records, env, [transactionId])).some((row) => recordsOf(row.doc as TraceDoc, env, '').some((r) => r.transactionId === transactionId));
}

/**
 * Deletes the decision records of these triggers, and their entries in the index of skips: their
 * own records, and their parts of the call records their notifications name (a call record left
 * with no part goes). Runs before their notifications are deleted.
 */
export async function deleteTraces(records: RecordStore, env: string, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  await records.deleteWhere(env, TABLE, { i1: transactionIds });
  const doomed = new Set(transactionIds);
  await keepOnly(records, env, await callRecordsOf(records, env, transactionIds), (r) => !doomed.has(r.transactionId));
  await records.deleteWhere(env, SKIPS, { i2: transactionIds });
}

/**
 * Writes these trace records again with only the decisions `keep` keeps; a record left with none
 * goes. A call's record (no trigger of its own) keeps naming each decision's trigger.
 */
export async function keepOnly(records: RecordStore, env: string, rows: readonly StoredRecord[], keep: (decision: DecisionRecord) => boolean): Promise<void> {
  const emptied: string[] = [];
  const rewritten: RecordInput[] = [];
  for (const row of rows) {
    const kept = recordsOf(row.doc as TraceDoc, env, row.i1 ?? '').filter(keep);
    if (kept.length === 0) emptied.push(row.key);
    else rewritten.push({ key: row.key, i1: row.i1, i2: row.i2, i3: subscriberOf(kept), sort: row.sort, doc: runsOf(kept, row.i1 === null) });
  }
  if (emptied.length > 0) await records.delete(env, TABLE, emptied);
  if (rewritten.length > 0) await records.put(env, TABLE, rewritten);
}
