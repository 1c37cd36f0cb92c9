import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings, manualClock, type Storage } from '../src/index.js';
import type { CodeWorkflow } from '../src/walk/code-workflow.js';
import { scriptedCodeWorkflow } from '../src/testing/scripted-code-workflow.js';
import { retryDelayMs } from '../src/engine/runtime/jobs.js';

const never = new Promise<never>(() => undefined);

/** A code workflow of one in-app step whose resolver never settles. */
function hanging(id: string): CodeWorkflow {
  const base = scriptedCodeWorkflow(id, [{ stepId: 'note', type: 'in_app', outputs: () => ({ body: 'never' }) }]);
  return { ...base, runNext: () => never };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('the step time limit (stepTimeoutMs)', () => {
  it('a resolver that never settles does not hold its batch: the job is retried, then given up, each time with the reason in explain; the batch\'s other jobs commit', async () => {
    const clock = manualClock('2026-05-04T08:00:00.000Z');
    const tidings = createTidings({ storage: memoryStorage(), clock, workflows: [hanging('stuck')], stepTimeoutMs: 50, maxAttempts: 2 });
    await tidings.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
    const gaveUp: string[] = [];
    tidings.events.on('job.failed', ({ error }) => gaveUp.push(error));
    await tidings.trigger({ name: 'stuck', to: 'ada', transactionId: 'stuck-1' });
    await tidings.trigger({ name: 'hello', to: 'bob', transactionId: 'hello-1', payload: {} });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction('hello-1')).map((m) => m.content)).toEqual(['Hi']);
    const first = (await tidings.explain('stuck-1')).flatMap((r) => r.entries);
    expect(first).toEqual([expect.objectContaining({ decision: 'failed', reason: expect.stringMatching(/did not reach its next step within 50 ms.*runs again later \(attempt 1 of 2\)/) })]);
    expect((await tidings.pending({ transactionId: 'stuck-1' })).jobs).toHaveLength(1);

    clock.advance(retryDelayMs(1));
    await tidings.runDue();
    const reasons = (await tidings.explain('stuck-1')).flatMap((r) => r.entries.map((e) => e.reason));
    expect(reasons[1]).toMatch(/within 50 ms.*the job gives up/);
    expect(gaveUp).toEqual([expect.stringContaining('did not reach its next step within 50 ms')]);
    expect((await tidings.pending({ transactionId: 'stuck-1' })).jobs).toEqual([]);
    expect(await tidings.messages.byTransaction('stuck-1')).toEqual([]);
  });

  it('a payload check that never settles refuses its trigger, naming the payload; nothing is stored', async () => {
    const base = scriptedCodeWorkflow('checked', [{ stepId: 'note', type: 'in_app', outputs: () => ({ body: 'x' }) }]);
    const tidings = createTidings({ storage: memoryStorage(), workflows: [{ ...base, preparePayload: () => never }], stepTimeoutMs: 50 });
    await expect(tidings.trigger({ name: 'checked', to: 'ada', transactionId: 'c-1' })).rejects.toMatchObject({ code: 'validation_failed', issues: [expect.objectContaining({ path: 'payload' })] });
    expect(await tidings.messages.byTransaction('c-1')).toEqual([]);
  });

  it('health reports a job loop whose jobs in hand stopped finishing as stuck', async () => {
    const base = memoryStorage();
    let hang = false;
    const storage: Storage = { ...base, integrations: { ...base.integrations, list: (...args) => (hang ? never : base.integrations.list(...args)) } };
    const tidings = createTidings({ storage, stepTimeoutMs: 5, providerTimeoutMs: 5 });
    await tidings.workflows.upsert({ name: 'Mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
    expect(tidings.health().jobLoop).toEqual({ running: false, stalledForMs: 0, stuck: false });
    hang = true;
    await tidings.trigger({ name: 'mail', to: { subscriberId: 'ada', email: 'ada@example.com' } });
    tidings.start();
    // The batch reads its integrations and never hears back: past 2 × (5 + 2 × 5) ms the loop is stuck.
    await until(() => tidings.health().jobLoop.stuck);
    expect(tidings.health().jobLoop).toMatchObject({ running: true, stuck: true });
    expect(tidings.health().jobLoop.stalledForMs).toBeGreaterThan(30);
  });
});
