import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { WorkflowInput } from '../../schemas/index.js';
import type { SuiteContext } from '../storage-under-test.js';

/** A digest whose window each subscriber chooses; hourly unless they say otherwise. */
const cadenceWorkflow: WorkflowInput = {
  name: 'Comment digest',
  triggers: [{ identifier: 'comments' }],
  steps: [
    {
      template: { type: 'digest' },
      metadata: {
        type: 'preference',
        choices: [
          { id: 'instant', cadence: 'instant' },
          { id: 'hourly', cadence: 'hourly' },
          { id: 'daily', cadence: 'daily', atTime: '09:00' },
          { id: 'weekly', cadence: 'weekly', weekDay: 'monday', atTime: '09:00' },
        ],
        default: 'hourly',
      },
    },
    { template: { type: 'in_app', content: '{{ step.total_count }} comments' } },
  ],
};

export function cadenceSuite({ get }: SuiteContext): void {
  describe('digest cadence', () => {
    const engine = (at: string, environmentId: string) => {
      const clock = manualClock(at);
      return { clock, tidings: createTidings({ storage: get(), clock, environmentId }) };
    };
    const feed = async (tidings: ReturnType<typeof engine>['tidings'], subscriberId: string) => (await tidings.messages.feed(subscriberId)).items.map((m) => m.content);

    it("cadence — a subscriber's daily choice closes the window at 09:00 on their clock, across the night clocks spring forward", async () => {
      // Paris goes from 02:00 CET to 03:00 CEST on 2026-03-29: 09:00 is 08:00Z on the 28th, 07:00Z on the 29th.
      const { clock, tidings } = engine('2026-03-28T08:30:00.000Z', 'env-cadence-dst');
      const workflow = await tidings.workflows.upsert(cadenceWorkflow);
      await tidings.subscribers.upsert({ subscriberId: 'ada', timezone: 'Europe/Paris' });
      const after = await tidings.preferences.update('ada', { workflowId: 'comments', digest: 'daily' });
      expect(after.workflows.find((w) => w.workflow.identifier === 'comments')!.digest).toMatchObject({ choice: 'daily', source: 'subscriber', default: 'hourly' });
      const first = await tidings.trigger({ name: 'comments', to: 'ada', payload: {} });
      await tidings.trigger({ name: 'comments', to: 'ada', payload: {} });
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => [d.count, d.dueAt])).toEqual([[2, '2026-03-29T07:00:00.000Z']]);
      expect(JSON.stringify(await tidings.explain(first.transactionId!, 'ada'))).toContain("subscriber's choice 'daily' (daily at 09:00 Europe/Paris); opened a digest due 2026-03-29T07:00:00.000Z");
      clock.set('2026-03-29T06:59:59.000Z');
      await tidings.runDue();
      expect(await feed(tidings, 'ada')).toEqual([]);
      clock.set('2026-03-29T07:00:00.000Z');
      await tidings.runDue();
      expect(await feed(tidings, 'ada')).toEqual(['2 comments']);
      // The next window opens on the new clock: 09:00 CEST is 07:00Z.
      await tidings.trigger({ name: 'comments', to: 'ada', payload: {} });
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => d.dueAt)).toEqual(['2026-03-30T07:00:00.000Z']);
      // The choice is stored with the subscriber's preference for the workflow, which reads back whole.
      expect((await get().preferences.list('env-cadence-dst', 'ada')).find((r) => r.workflowId === workflow._id)).toMatchObject({ digest: 'daily', enabled: true });
    });

    it('cadence — a changed choice applies to the next window (the open digest keeps its due time); instant sends each event on its own', async () => {
      const { clock, tidings } = engine('2026-06-01T10:20:00.000Z', 'env-cadence-change');
      await tidings.workflows.upsert(cadenceWorkflow);
      await tidings.subscribers.upsert({ subscriberId: 'bo' });
      // No choice: the workflow's default, hourly.
      const first = await tidings.trigger({ name: 'comments', to: 'bo', payload: {} });
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => d.dueAt)).toEqual(['2026-06-01T11:00:00.000Z']);
      expect(JSON.stringify(await tidings.explain(first.transactionId!))).toContain("workflow's default 'hourly' (hourly, on the hour UTC), as the subscriber chose none");
      await tidings.preferences.update('bo', { workflowId: 'comments', digest: 'instant' });
      const joined = await tidings.trigger({ name: 'comments', to: 'bo', payload: {} });
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => [d.count, d.dueAt])).toEqual([[2, '2026-06-01T11:00:00.000Z']]);
      expect(JSON.stringify(await tidings.explain(joined.transactionId!))).toContain('which keeps its due time');
      clock.set('2026-06-01T11:00:00.000Z');
      await tidings.runDue();
      expect(await feed(tidings, 'bo')).toEqual(['2 comments']);
      // The window closed: from now on each event goes out on its own, at once.
      await tidings.trigger({ name: 'comments', to: 'bo', payload: {} });
      await tidings.runDue();
      expect(await feed(tidings, 'bo')).toEqual(['1 comments', '2 comments']);
      expect((await tidings.pending()).digests).toEqual([]);
      // Weekly on monday at 09:00: the 2026-06-01 window has passed, so the next monday.
      await tidings.preferences.update('bo', { workflowId: 'comments', digest: 'weekly' });
      await tidings.trigger({ name: 'comments', to: 'bo', payload: {} });
      await tidings.runDue();
      expect((await tidings.pending()).digests.map((d) => d.dueAt)).toEqual(['2026-06-08T09:00:00.000Z']);
      // null goes back to the workflow's default.
      const reset = await tidings.preferences.update('bo', { workflowId: 'comments', digest: null });
      expect(reset.workflows.find((w) => w.workflow.identifier === 'comments')!.digest).toMatchObject({ choice: 'hourly', source: 'default' });
    });

    it('cadence — a choice the workflow does not offer, or a workflow without a cadence to choose, is refused naming digest; so is a default that is not among the choices', async () => {
      const { tidings } = engine('2026-06-01T10:00:00.000Z', 'env-cadence-refused');
      await tidings.workflows.upsert(cadenceWorkflow);
      await tidings.workflows.upsert({ name: 'Plain', triggers: [{ identifier: 'plain' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
      await tidings.subscribers.upsert({ subscriberId: 'cy' });
      await expect(tidings.preferences.update('cy', { workflowId: 'comments', digest: 'monthly' })).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'digest', message: expect.stringContaining('"monthly" is not a cadence') }] });
      await expect(tidings.preferences.update('cy', { workflowId: 'plain', digest: 'daily' })).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'digest' }] });
      await expect(tidings.preferences.update('cy', { digest: 'daily' })).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'digest' }] });
      await expect(tidings.preferences.updateMany('cy', [{ workflowId: 'comments', digest: 'hourly' }, { workflowId: 'comments', digest: 'never' }])).rejects.toMatchObject({ issues: [{ path: 'preferences[1].digest' }] });
      expect((await tidings.preferences.get('cy')).workflows.find((w) => w.workflow.identifier === 'comments')!.digest!.choice).toBe('hourly');
      expect((await tidings.preferences.get('cy')).workflows.find((w) => w.workflow.identifier === 'plain')!.digest).toBeUndefined();
      const broken = { ...cadenceWorkflow, triggers: [{ identifier: 'broken' }], steps: [{ template: { type: 'digest' as const }, metadata: { type: 'preference' as const, choices: [{ id: 'daily', cadence: 'daily' as const, atTime: '9:00' }], default: 'weekly' } }] };
      await expect(tidings.workflows.upsert(broken)).rejects.toMatchObject({
        code: 'validation_failed',
        issues: expect.arrayContaining([expect.objectContaining({ path: 'steps[0].metadata.default' }), expect.objectContaining({ path: 'steps[0].metadata.choices[0].atTime' })]),
      });
    });
  });
}
