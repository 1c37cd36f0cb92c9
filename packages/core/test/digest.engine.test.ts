import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StepInput, WorkflowInput } from '../src/index.js';
import { testEngine } from './helpers.js';

const digestWorkflow = (metadata: NonNullable<StepInput['metadata']>, content = '{{ step.total_count }}: {% for e in step.events %}{{ e.n }} {% endfor %}'): WorkflowInput => ({
  name: 'Digest',
  triggers: [{ identifier: 'digest' }],
  steps: [{ template: { type: 'digest' }, metadata }, { template: { type: 'in_app', content } }],
});

async function contents(tidings: ReturnType<typeof testEngine>['tidings'], subscriberId = 'ada') {
  return (await tidings.messages.feed(subscriberId, { limit: 100 })).items.map((m) => m.content).reverse();
}

describe('digests in the engine', () => {
  it('regular: events within the window flush once, in trigger order; the next event opens a new digest', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 10, unit: 'minutes' }));
    for (let n = 1; n <= 3; n++) {
      await tidings.trigger({ name: 'digest', to: 'ada', payload: { n } });
      await tidings.runDue();
      clock.advance(60_000);
    }
    expect(await contents(tidings)).toEqual([]);
    expect((await tidings.pending()).digests).toMatchObject([{ count: 3, dueAt: '2026-06-01T12:10:00.000Z' }]);
    clock.set('2026-06-01T12:10:00.000Z');
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['3: 1 2 3 ']);
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 4 } });
    await tidings.runDue();
    clock.advance(10 * 60_000);
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['3: 1 2 3 ', '1: 4 ']);
  });

  it('any interleaving of N events within the window gives exactly one flush with all N in trigger order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 590 }), { minLength: 1, maxLength: 12 }), async (offsets) => {
        const { tidings, clock } = testEngine();
        await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 10, unit: 'minutes' }));
        const times = [...offsets].sort((a, b) => a - b);
        for (const [n, at] of times.entries()) {
          clock.set(new Date(Date.parse('2026-06-01T12:00:00.000Z') + at * 1000));
          await tidings.trigger({ name: 'digest', to: 'ada', payload: { n } });
          if (n % 3 === 0) await tidings.runDue();
        }
        await tidings.runDue();
        clock.set('2026-06-01T12:30:00.000Z');
        await tidings.runDue();
        const flushes = await contents(tidings);
        expect(flushes).toHaveLength(1);
        expect(flushes[0]).toBe(`${times.length}: ${times.map((_, n) => `${n} `).join('')}`);
      }),
      { numRuns: 25 },
    );
  });

  it('digestKey groups by a payload path (nested, and a missing value is its own group)', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 5, unit: 'minutes', digestKey: 'post.id' }, '{{ step.events[0].post.id | default: "none" }} ×{{ step.total_count }}'));
    for (const post of [{ id: 1 }, { id: 2 }, { id: 1 }, undefined, {}]) await tidings.trigger({ name: 'digest', to: 'ada', payload: post ? { post } : {} });
    await tidings.runDue();
    expect((await tidings.pending()).digests.map((d) => [d.digestKey, d.count])).toEqual([['1', 2], ['2', 1], [null, 2]]);
    clock.advance(5 * 60_000);
    await tidings.runDue();
    expect((await contents(tidings)).sort()).toEqual(['1 ×2', '2 ×1', 'none ×2']);
  });

  it('updateMode: each join moves the flush to amount after the latest event (debounce)', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 5, unit: 'minutes', updateMode: true }));
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 1 } });
    await tidings.runDue();
    clock.advance(4 * 60_000);
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 2 } });
    await tidings.runDue();
    clock.advance(60_000);
    await tidings.runDue();
    expect(await contents(tidings)).toEqual([]);
    clock.advance(4 * 60_000);
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['2: 1 2 ']);
  });

  it('backoff: the first event after a quiet period goes at once; events close behind it are digested', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(digestWorkflow({ type: 'backoff', amount: 10, unit: 'minutes', backoffAmount: 5, backoffUnit: 'minutes' }));
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 1 } });
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['1: 1 ']);
    clock.advance(60_000);
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 2 } });
    clock.advance(60_000);
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 3 } });
    await tidings.runDue();
    clock.advance(10 * 60_000);
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['1: 1 ', '2: 2 3 ']);
    clock.advance(60 * 60_000);
    await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 4 } });
    await tidings.runDue();
    expect((await contents(tidings)).at(-1)).toBe('1: 4 ');
  });

  it('timed: flushes at the next atTime in the subscriber’s zone; overrides.delay changes regular digests only', async () => {
    const { tidings, clock } = testEngine({}, '2026-06-01T14:00:00.000Z');
    await tidings.workflows.upsert(digestWorkflow({ type: 'timed', unit: 'days', amount: 1, timed: { atTime: '09:00' } }));
    await tidings.trigger({ name: 'digest', to: { subscriberId: 'ada', timezone: 'America/New_York' }, payload: { n: 1 }, overrides: { delay: { amount: 1, unit: 'seconds' } } });
    await tidings.runDue();
    expect((await tidings.pending()).digests[0]!.dueAt).toBe('2026-06-02T13:00:00.000Z');
    clock.set('2026-06-02T13:00:00.000Z');
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['1: 1 ']);

    const regular = testEngine();
    await regular.tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 1, unit: 'hours' }));
    await regular.tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 1 }, overrides: { delay: { amount: 2, unit: 'minutes' } } });
    await regular.tidings.runDue();
    expect((await regular.tidings.pending()).digests[0]!.dueAt).toBe('2026-06-01T12:02:00.000Z');
  });

  it('timed across a DST change: a 09:00 New York digest opened the day before clocks spring forward fires at 09:00 EDT', async () => {
    const { tidings, clock } = testEngine({}, '2026-03-07T15:00:00.000Z');
    await tidings.workflows.upsert(digestWorkflow({ type: 'timed', unit: 'days', amount: 1, timed: { atTime: '09:00' } }));
    await tidings.trigger({ name: 'digest', to: { subscriberId: 'ada', timezone: 'America/New_York' }, payload: { n: 1 } });
    await tidings.runDue();
    // 2026-03-08 09:00 in New York is EDT (UTC-4) after the 2 AM change: 13:00Z, not 14:00Z.
    expect((await tidings.pending()).digests[0]!.dueAt).toBe('2026-03-08T13:00:00.000Z');
    clock.set('2026-03-08T12:59:59.000Z');
    await tidings.runDue();
    expect(await contents(tidings)).toEqual([]);
    clock.set('2026-03-08T13:00:00.000Z');
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['1: 1 ']);
  });

  it('cancel: the opener’s digest passes to its oldest joined event with the window kept; a cancelled joined event leaves step.events', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 10, unit: 'minutes' }));
    const ids: string[] = [];
    for (let n = 1; n <= 4; n++) {
      ids.push((await tidings.trigger({ name: 'digest', to: 'ada', payload: { n } })).transactionId!);
      await tidings.runDue();
      clock.advance(1_000);
    }
    await tidings.cancel(ids[0]!);
    await tidings.cancel(ids[2]!);
    const [digest] = (await tidings.pending()).digests;
    expect(digest).toMatchObject({ count: 2, dueAt: '2026-06-01T12:10:00.000Z', transactionIds: [ids[1], ids[3]] });
    expect((await tidings.pending({ transactionId: ids[1] })).jobs).toMatchObject([{ runAt: '2026-06-01T12:10:00.000Z', digestId: digest!.id }]);
    clock.set('2026-06-01T12:10:00.000Z');
    await tidings.runDue();
    expect(await contents(tidings)).toEqual(['2: 2 4 ']);
    expect((await tidings.messages.byTransaction(ids[1]!))).toHaveLength(1);
  });

  it('cancelling every event of a digest leaves nothing to flush', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 10, unit: 'minutes' }));
    const a = await tidings.trigger({ name: 'digest', to: 'ada', payload: { n: 1 } });
    await tidings.runDue();
    await tidings.cancel(a.transactionId!);
    expect(await tidings.pending()).toEqual({ jobs: [], digests: [] });
    clock.advance(3_600_000);
    expect(await tidings.runDue()).toBe(0);
  });

  it('digests are per subscriber; concurrent triggers into one digest lose and duplicate nothing', async () => {
    const { tidings, clock } = testEngine({ batchSize: 7 });
    await tidings.workflows.upsert(digestWorkflow({ type: 'regular', amount: 1, unit: 'hours' }, '{{ step.total_count }}'));
    const events = Array.from({ length: 60 }, (_, n) => ({ name: 'digest', to: n % 2 ? 'ada' : 'bob', payload: { n } }));
    await Promise.all([tidings.triggerBulk(events.slice(0, 30)), tidings.triggerBulk(events.slice(30)), tidings.runDue(), tidings.runDue()]);
    await tidings.runDue();
    clock.advance(3_600_000);
    await tidings.runDue();
    expect(await contents(tidings, 'ada')).toEqual(['30']);
    expect(await contents(tidings, 'bob')).toEqual(['30']);
  });
});
