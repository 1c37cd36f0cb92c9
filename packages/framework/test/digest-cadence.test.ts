import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { workflow } from '../src/index.js';
import { engines } from './engines.js';

const cadence = {
  choices: [
    { id: 'instant', cadence: 'instant' as const },
    { id: 'daily', cadence: 'daily' as const, atTime: '09:00' },
  ],
  default: 'daily',
};

describe('step.digest’s cadence (memory: the engine’s cadence is tested on every backend in the conformance suite)', () => {
  const engine = engines({ name: 'memory', create: () => memoryStorage() });

  it('the subscriber chooses the window among the cadences the code digest offers; preferences list them; instant sends each event on its own', async () => {
    const comments = workflow('comments', async ({ step }) => {
      const { events } = await step.digest('gather', () => ({ type: 'preference', digestKey: 'postId' }), { cadence });
      await step.inApp('summary', () => ({ body: `${events.length} comments` }));
    });
    // Discovery knows the cadences before any run: preferences show them and check a choice against them.
    const { tidings, clock, drain } = await engine([comments], [{ subscriberId: 'ada', timezone: 'Europe/Paris' }]);
    expect((await tidings.preferences.get('ada')).workflows[0]!.digest).toEqual({ choice: 'daily', source: 'default', default: 'daily', choices: cadence.choices });
    await expect(tidings.preferences.update('ada', { workflowId: 'comments', digest: 'hourly' })).rejects.toMatchObject({ issues: [{ path: 'digest' }] });

    // 2026-03-02 10:00 UTC is 11:00 in Paris: the default window closes at 09:00 Paris the next day.
    await tidings.trigger({ name: 'comments', to: 'ada', payload: { postId: 'p1' } });
    await tidings.trigger({ name: 'comments', to: 'ada', payload: { postId: 'p1' } });
    await drain();
    expect((await tidings.pending()).digests.map((d) => [d.count, d.dueAt])).toEqual([[2, '2026-03-03T08:00:00.000Z']]);
    clock.set('2026-03-03T08:00:00.000Z');
    await drain();
    expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['2 comments']);

    await tidings.preferences.update('ada', { workflowId: 'comments', digest: 'instant' });
    await tidings.trigger({ name: 'comments', to: 'ada', payload: { postId: 'p1' } });
    await drain();
    expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['1 comments', '2 comments']);
  });

  it('a cadence option that is refused fails discovery, naming the step and field; timing outputs beside it fail the walk', async () => {
    const broken = workflow('broken', async ({ step }) => {
      await step.digest('gather', () => ({ type: 'preference' }), { cadence: { choices: [{ id: 'daily', cadence: 'daily', atTime: '9am' }], default: 'weekly' } });
    });
    const { tidings } = await engine([broken]);
    await expect(tidings.workflows.list()).rejects.toMatchObject({ message: expect.stringMatching(/step "gather": cadence\.choices\[0\]\.atTime: .*cadence\.default: must be the id of one of the choices/) });

    const mixed = workflow('mixed', async ({ step }) => {
      // A digest with cadence takes no amount or unit (the types leave it to this check: a resolver's extra members pass them).
      await step.digest('gather', () => ({ type: 'preference', amount: 5, unit: 'minutes' }), { cadence });
    });
    const second = await engine([mixed]);
    await second.tidings.trigger({ name: 'mixed', to: 'ada', transactionId: 'tx-mixed' });
    await second.drain();
    const [entry] = (await second.tidings.explain('tx-mixed')).flatMap((r) => r.entries);
    expect(entry).toMatchObject({ stepId: 'gather', decision: 'failed', reason: expect.stringContaining('takes its window from the subscriber') });
  });
});
