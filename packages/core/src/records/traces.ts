import type { RecordInput, RecordStore } from './record-store.js';
import type { DecisionRecord } from '../schemas/decision-record.js';
import type { TraceRepository } from '../storage.js';

export const TRACES = 'traces';
const TABLE = TRACES;
/**
 * One record per (subscriber, trigger) whose decisions skipped a channel step: the index by
 * subscriber the traces do not have (a fan-out's records are stored as one run under the trigger).
 */
export const SKIPS = 'skips';

const CHANNEL_TYPES: ReadonlySet<string> = new Set(['in_app', 'email', 'sms', 'chat', 'push']);
const skipsAChannel = (record: DecisionRecord) => record.entries.some((e) => e.decision === 'skipped' && CHANNEL_TYPES.has(e.type));

/** Consecutive records of one trigger that differ only in their subscriber and job. */
export interface TraceRun {
  readonly at: string;
  readonly revision?: number | string;
  readonly entries: DecisionRecord['entries'];
  readonly who: [subscriberId: string, jobId: string][];
}

/**
 * The records of one trigger written together, as runs: a topic fan-out's batch of a thousand
 * identical decisions is one run, about a tenth of the bytes of a thousand records.
 */
export function runsOf(records: readonly DecisionRecord[]): { runs: TraceRun[] } {
  const runs: TraceRun[] = [];
  let last: { run: TraceRun; entries: string | null } | undefined;
  for (const record of records) {
    // The entries are compared as text only when the instant matches (never for a record alone).
    if (last && last.run.at === record.at && last.run.revision === record.revision && (last.entries ??= JSON.stringify(last.run.entries)) === JSON.stringify(record.entries)) {
      last.run.who.push([record.subscriberId, record.jobId]);
      continue;
    }
    const run: TraceRun = { at: record.at, ...(record.revision !== undefined && { revision: record.revision }), entries: record.entries, who: [[record.subscriberId, record.jobId]] };
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
  return doc.runs.flatMap((run) => run.who.map(([subscriberId, jobId]) => ({ environmentId: env, transactionId, subscriberId, jobId, at: run.at, ...(run.revision !== undefined && { revision: run.revision }), entries: run.entries })));
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

/**
 * Decision records, one record per trigger per append, read by trigger (the first index value) in
 * key order and sorted by instant here; the subscriber, or `*` when the append holds several, is the
 * third value (filtered among a trigger's few records, so not indexed).
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
        const single = group.every((r) => r.subscriberId === first.subscriberId);
        const record = { key: appendKey(), i1: first.transactionId, i3: single ? first.subscriberId : '*', doc: runsOf(group) };
        const same = byEnv.get(first.environmentId);
        if (same) same.push(record);
        else byEnv.set(first.environmentId, [record]);
      }
      for (const [env, batch] of byEnv) await records.put(env, TABLE, batch);
      const skips = new Map<string, RecordInput[]>();
      for (const r of decisions) {
        if (!skipsAChannel(r)) continue;
        const skip = { key: `${r.subscriberId}\u0001${r.transactionId}`, i1: r.subscriberId, i2: r.transactionId, sort: r.at, doc: {} };
        const same = skips.get(r.environmentId);
        if (same) same.push(skip);
        else skips.set(r.environmentId, [skip]);
      }
      for (const [env, batch] of skips) await records.put(env, SKIPS, batch);
    },
    async skippedFor(env, subscriberId, { since, limit }) {
      const rows = await records.find(env, SKIPS, { i1: subscriberId, ...(since !== undefined && { sort: { gte: since } }), order: 'desc', limit });
      return rows.map((row) => ({ transactionId: row.i2 ?? '', at: row.sort }));
    },
    async list(env, transactionId, subscriberId) {
      const rows = await records.find(env, TABLE, { i1: transactionId, ...(subscriberId !== undefined && { i3: [subscriberId, '*'] }) });
      const found = rows.flatMap((row) => recordsOf(row.doc as TraceDoc, env, transactionId));
      found.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
      return subscriberId === undefined ? found : found.filter((r) => r.subscriberId === subscriberId);
    },
  };
}

/** Deletes the decision records of these triggers, and their entries in the index of skips. */
export async function deleteTraces(records: RecordStore, env: string, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  await records.deleteWhere(env, TABLE, { i1: transactionIds });
  await records.deleteWhere(env, SKIPS, { i2: transactionIds });
}
