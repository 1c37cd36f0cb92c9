import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { z } from 'zod';
import { workflow } from '../src/index.js';
import { engines } from './engines.js';

const HOUR = 3_600_000;

describe('waits in code workflows (memory: the engine’s waits are tested on every backend in the conformance suite)', () => {
  const engine = engines({ name: 'memory', create: () => memoryStorage() });

  it('step.waitForToken resolves to the token and the output it was completed with; cancelOn cancels a run waiting on a delay', async () => {
    const approval = workflow('approval', async ({ step }) => {
      const approved = await step.waitForToken('approve', { timeout: '1d' });
      await step.inApp('done', () => ({ body: approved.matched ? `approved by ${String(approved.output['by'])} (${approved.token.id.slice(0, 4)})` : 'not approved' }));
    });
    const reminder = workflow(
      'reminder',
      async ({ step, payload }) => {
        await step.delay('later', () => ({ amount: 1, unit: 'hours' }));
        await step.inApp('remind', () => ({ body: `task ${payload.taskId} is open` }));
      },
      { payloadSchema: z.object({ taskId: z.string() }), cancelOn: [{ event: 'task.resolved', match: 'data.taskId' }] },
    );
    const { tidings, clock } = await engine([approval, reminder]);
    const asked = await tidings.trigger({ name: 'approval', to: 'ada' });
    await tidings.trigger({ name: 'reminder', to: 'ada', payload: { taskId: 't-1' } });
    await tidings.trigger({ name: 'reminder', to: 'ada', payload: { taskId: 't-2' } });
    await tidings.runDue();
    const [token] = await tidings.tokens.list({ transactionId: asked.transactionId! });
    await tidings.tokens.complete(token!.id, { by: 'grace' });
    expect(await tidings.signal('task.resolved', { subscriberId: 'ada', data: { taskId: 't-1' } })).toMatchObject({ cancelled: 1 });
    clock.advance(HOUR);
    await tidings.runDue();
    expect((await tidings.messages.feed('ada')).items.map((m) => m.content).sort()).toEqual(['approved by grace (tok_)', 'task t-2 is open']);
  });

  it('a bad cancelOn is refused when the workflow is made, naming the field', () => {
    expect(() => workflow('bad', async () => undefined, { cancelOn: [{ event: '' }] })).toThrow(/cancelOn\.0\.event/);
  });
});
