import type { DecisionRecord } from '@tidings/core';
import { decodeJson, encodeJson } from './codec.js';

/** Consecutive records of one trigger that differ only in their subscriber and job. */
interface TraceRun {
  readonly at: string;
  readonly entries: DecisionRecord['entries'];
  readonly who: [subscriberId: string, jobId: string][];
}

/**
 * The document of one trace row: the records of one trigger written together, as runs. A topic
 * fan-out's batch of a thousand identical decisions is one run, about a tenth of the bytes of a
 * thousand records (those bytes were a sixth of what a fan-out committed).
 */
export function encodeTraceDoc(records: readonly DecisionRecord[]): string {
  const runs: TraceRun[] = [];
  let lastKey: string | undefined;
  for (const record of records) {
    const key = `${record.at}\u0001${encodeJson(record.entries)}`;
    if (key === lastKey) runs[runs.length - 1]!.who.push([record.subscriberId, record.jobId]);
    else runs.push({ at: record.at, entries: record.entries, who: [[record.subscriberId, record.jobId]] });
    lastKey = key;
  }
  return encodeJson({ runs });
}

/** The records of a trace row, in the order they were written; rows written as records read back as they are. */
export function decodeTraceDoc(doc: unknown, row: { env: string; transaction_id: string }): DecisionRecord[] {
  const value = decodeJson<DecisionRecord | DecisionRecord[] | { runs: TraceRun[] }>(doc);
  if (Array.isArray(value)) return value;
  if (!('runs' in value)) return [value];
  return value.runs.flatMap((run) =>
    run.who.map(([subscriberId, jobId]) => ({ environmentId: row.env, transactionId: row.transaction_id, subscriberId, jobId, at: run.at, entries: run.entries })),
  );
}
