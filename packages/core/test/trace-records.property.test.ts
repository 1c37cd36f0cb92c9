import type { DecisionRecord } from '@tidings/core';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { recordsOf, runsOf, type TraceDoc } from '../src/records/traces.js';

const encodeTraceDoc = (records: readonly DecisionRecord[]) => JSON.stringify(runsOf(records));
const decodeTraceDoc = (doc: string, { env, transaction_id }: { env: string; transaction_id: string }) => recordsOf(JSON.parse(doc) as TraceDoc, env, transaction_id);

const row = { env: 'env-a', transaction_id: 'tx-1' };
const entry = fc.record({
  stepIndex: fc.nat({ max: 3 }),
  stepId: fc.constantFrom('s0', 's1'),
  type: fc.constantFrom('in_app' as const, 'email' as const),
  decision: fc.constantFrom('delivered' as const, 'skipped' as const),
  reason: fc.constantFrom('rendered for in_app', 'a step filter did not pass'),
});
const record: fc.Arbitrary<DecisionRecord> = fc.record({
  environmentId: fc.constant(row.env),
  transactionId: fc.constant(row.transaction_id),
  subscriberId: fc.constantFrom('ada', 'bob', 'cy'),
  jobId: fc.string({ minLength: 1, maxLength: 3 }),
  at: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z'),
  revision: fc.constantFrom(1, 2, 'code-0123456789ab'),
  entries: fc.array(entry, { maxLength: 3 }),
}, { requiredKeys: ['environmentId', 'transactionId', 'subscriberId', 'jobId', 'at', 'entries'] });

it('a trace record reads back every record of one trigger, in the order written', () => {
  fc.assert(fc.property(fc.array(record, { minLength: 1, maxLength: 30 }), (records) => {
    expect(decodeTraceDoc(encodeTraceDoc(records), row)).toEqual(records);
  }));
});

it('a fan-out batch of identical decisions is stored once with its subscribers, and rows written as records still read', () => {
  const entries = [{ stepIndex: 0, stepId: 's0', type: 'in_app' as const, decision: 'delivered' as const, reason: 'rendered for in_app' }];
  const batch = Array.from({ length: 1_000 }, (_, i) => ({ environmentId: row.env, transactionId: row.transaction_id, subscriberId: `m-${i}`, jobId: `j-${i}`, at: '2026-01-01T00:00:00.000Z', entries }));
  expect(encodeTraceDoc(batch).length).toBeLessThan(JSON.stringify(batch).length / 5);
  expect(decodeTraceDoc(JSON.stringify(batch), row)).toEqual(batch);
  expect(decodeTraceDoc(JSON.stringify(batch[0]), row)).toEqual([batch[0]]);
});
