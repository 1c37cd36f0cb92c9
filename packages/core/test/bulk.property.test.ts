import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inAppWorkflow, testEngine } from './helpers.js';

const validEvent = fc.record({ name: fc.constant('ok'), to: fc.stringMatching(/^[a-z]{1,8}$/), payload: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) });
const invalidEvent = fc.oneof(
  fc.constant({ to: 'x' }),
  fc.constant({ name: 'ok' }),
  fc.constant({ name: 'ok', to: 'x', payload: 'not an object' }),
  fc.constant({ name: 'missing-workflow', to: 'x' }),
  fc.constant({ name: 'ok', to: [] }),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
);

describe('triggerBulk — properties', () => {
  it('random mixes of valid and invalid events give one result per event, in order, and every valid event is processed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(validEvent.map((e) => ({ valid: true, e })), invalidEvent.map((e) => ({ valid: false, e }))), { minLength: 1, maxLength: 100 }), async (items) => {
        const { tidings } = testEngine();
        await tidings.workflows.upsert(inAppWorkflow('ok', 'hi'));
        const results = await tidings.triggerBulk(items.map((i) => i.e) as never[]);
        expect(results).toHaveLength(items.length);
        results.forEach((result, i) => {
          expect(result.acknowledged).toBe(true);
          expect(result.status === 'processed').toBe(items[i]!.valid);
        });
        const processed = results.filter((r) => r.status === 'processed');
        expect(new Set(processed.map((r) => r.transactionId)).size).toBe(processed.length);
        await tidings.runDue();
        // Each processed event has its one message, stored inline or by its job.
        for (const { transactionId } of processed) expect(await tidings.messages.byTransaction(transactionId!)).toHaveLength(1);
      }),
      { numRuns: 40 },
    );
  });
});
