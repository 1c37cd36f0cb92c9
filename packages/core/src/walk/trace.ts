import type { DecisionRecord, TraceEntry } from '../schemas/decision-record.js';

export type { DecisionRecord, TraceEntry } from '../schemas/decision-record.js';

export function decisionRecord(env: string, job: { id: string; transactionId: string; subscriberId: string }, at: string, entries: readonly TraceEntry[], revision?: number | string): DecisionRecord {
  return { environmentId: env, transactionId: job.transactionId, subscriberId: job.subscriberId, jobId: job.id, at, ...(revision !== undefined && { revision }), entries };
}
