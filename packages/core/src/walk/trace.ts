import type { DecisionRecord, TraceEntry } from '../schemas/decision-record.js';

export type { DecisionRecord, TraceEntry } from '../schemas/decision-record.js';

export function decisionRecord(env: string, job: { id: string; transactionId: string; subscriberId: string }, at: string, entries: readonly TraceEntry[]): DecisionRecord {
  return { environmentId: env, transactionId: job.transactionId, subscriberId: job.subscriberId, jobId: job.id, at, entries };
}
