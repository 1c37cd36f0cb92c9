import { describe, expect, it, vi } from 'vitest';
import { testEngine } from './helpers.js';

const renders = vi.hoisted(() => ({ count: 0 }));

// Counts every render of a step's templates, whoever walks (inline delivery or a job).
vi.mock('../src/templates/render-step.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/templates/render-step.js')>();
  return {
    ...actual,
    renderStep: (...args: Parameters<typeof actual.renderStep>) => {
      renders.count++;
      return actual.renderStep(...args);
    },
  };
});

describe('each subscriber is walked once', () => {
  it('a workflow with an email step renders each template once per subscriber: walked by its job, not also at trigger time', async () => {
    const { tidings } = testEngine({ inlineInApp: true });
    await tidings.workflows.upsert({
      name: 'mixed',
      triggers: [{ identifier: 'mixed' }],
      steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}' } }, { template: { type: 'email', subject: 'Hello', content: 'Body {{ payload.n }}' } }],
    });
    renders.count = 0;
    const result = await tidings.trigger({ name: 'mixed', to: ['ada', 'bob', 'cy'], payload: { n: 1 } });
    expect(renders.count).toBe(0);
    expect(await tidings.runDue()).toBe(3);
    expect(renders.count).toBe(6);
    expect((await tidings.messages.byTransaction(result.transactionId!)).map((m) => m.channel).sort()).toEqual(['email', 'email', 'email', 'in_app', 'in_app', 'in_app']);
  });

  it('an in-app-only workflow is walked inline, once, and queues no job', async () => {
    const { tidings } = testEngine({ inlineInApp: true });
    await tidings.workflows.upsert({ name: 'bell', triggers: [{ identifier: 'bell' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }, { template: { type: 'in_app', content: 'Again' } }] });
    renders.count = 0;
    await tidings.trigger({ name: 'bell', to: ['ada', 'bob'] });
    expect(renders.count).toBe(4);
    expect(await tidings.runDue()).toBe(0);
    expect(renders.count).toBe(4);
  });
});
