import { docsOf } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { DebounceRecord } from '../../debounce/debounce-burst.js';
import type { Job } from '../../schemas/index.js';
import { newJob } from '../runtime/jobs.js';

export const DEBOUNCES = 'debounces';

export const debounceJobKey = (group: string) => `debounce:${group}`;

export async function readDebounces(records: RecordStore, env: string, groups: readonly string[]): Promise<Map<string, DebounceRecord>> {
  if (groups.length === 0) return new Map();
  return new Map(((await records.getDocs(env, DEBOUNCES, groups)) as DebounceRecord[]).map((d) => [d.group, d] as const));
}

export const putDebounces = (records: RecordStore, env: string, bursts: readonly DebounceRecord[]) =>
  records.put(env, DEBOUNCES, bursts.map((d) => ({ key: d.group, i1: d.workflowId, i2: d.event.transactionId ?? null, sort: d.dueAt, doc: d })));

/** The burst whose last trigger is this one, if it still waits. */
export async function burstOfTransaction(records: RecordStore, env: string, transactionId: string): Promise<DebounceRecord | null> {
  return docsOf<DebounceRecord>(await records.find(env, DEBOUNCES, { i2: transactionId, limit: 1 }))[0] ?? null;
}

/** The burst's run, keyed by the burst: each later trigger moves it to the burst's new due time. */
export const debounceJob = (env: string, burst: DebounceRecord, now: Date): Job =>
  newJob({ env, kind: 'debounce', runAt: burst.dueAt, transactionId: debounceJobKey(burst.group), subscriberId: '', key: debounceJobKey(burst.group), data: { group: burst.group } }, now);
