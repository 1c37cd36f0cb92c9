/**
 * The `http` step in the engine without a network: checked when saved (naming the field), failing
 * (or going on under `continueOnFailure`) when the engine has no transport, and previewed without a
 * request (the steps after it see an empty answer). The requests themselves are proved against a
 * local server in @tidings/providers (http-step.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowInput } from '../src/index.js';
import { testEngine } from './helpers.js';

const workflow = (continueOnFailure: boolean): WorkflowInput => ({
  name: 'fetch',
  triggers: [{ identifier: 'fetch' }],
  steps: [
    { _id: 'account', template: { type: 'http' }, http: { url: 'https://api.example.com/{{ subscriber.subscriberId }}', continueOnFailure } },
    { _id: 'note', template: { type: 'in_app', content: 'Plan: {{ steps.account.plan | default: "unknown" }}' } },
  ],
});

describe('http step', () => {
  it('is refused when saved with a bad field, naming it; nothing is stored', async () => {
    const { tidings } = testEngine();
    const bad = (http: object) => tidings.workflows.upsert({ name: 'bad', triggers: [{ identifier: 'bad' }], steps: [{ template: { type: 'http' }, http: http as never }] });
    await expect(bad({ url: 'https://x/{{ payload.id' })).rejects.toThrow(/steps\.0\.http\.url.*template does not parse|steps\[0\]\.http\.url.*template does not parse/);
    await expect(bad({ url: 'https://x', method: 'HEAD' })).rejects.toThrow(/http\.method/);
    await expect(bad({ url: 'https://x', timeout: 60_000 })).rejects.toThrow(/http\.timeout.*at most 30000/);
    await expect(bad({ url: 'https://x', responseSchema: { type: 'no-such-type' } })).rejects.toThrow(/http\.responseSchema.*JSON Schema/);
    await expect(tidings.workflows.upsert({ name: 'bad', triggers: [{ identifier: 'bad' }], steps: [{ template: { type: 'in_app', content: 'x' }, http: { url: 'https://x' } }] })).rejects.toThrow(/http.*takes no http request/);
    expect(await tidings.workflows.get('bad')).toBeNull();
  });

  it('without a transport the step fails and the run ends, or goes on under continueOnFailure', async () => {
    for (const continueOnFailure of [false, true]) {
      const { tidings } = testEngine();
      await tidings.workflows.upsert(workflow(continueOnFailure));
      const { transactionId } = await tidings.trigger({ name: 'fetch', to: 'ada' });
      await tidings.runDue();
      const entries = (await tidings.explain(transactionId!)).flatMap((r) => r.entries);
      expect(entries[0]).toMatchObject({ stepId: 'account', type: 'http', decision: 'failed', reason: expect.stringContaining('no httpStepTransport') });
      expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.content)).toEqual(continueOnFailure ? ['Plan: unknown'] : []);
    }
  });

  it('a preview sends no request; the steps after it see an empty answer', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(workflow(false));
    const preview = await tidings.preview({ workflowId: 'fetch', subscriber: { subscriberId: 'ada' } });
    expect(preview.steps.map((s) => s.content)).toEqual(['Plan: unknown']);
  });
});
