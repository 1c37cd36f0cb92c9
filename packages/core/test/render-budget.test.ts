import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings } from '../src/index.js';
import { RENDER_BUDGET_MS, RenderBudgetSpent, renderBudget, renderTemplate } from '../src/templates/render.js';
import { walkSteps } from '../src/walk/step-list-walker.js';
import type { WalkInput } from '../src/walk/walker.js';
import { notificationRecord, workflowRecord } from '../src/testing/fixtures.js';
import type { Step, Subscriber } from '../src/schemas/index.js';

/** A template whose cost the payload chooses: n × n iterations. */
const LOOP = '{% for x in payload.items %}{% for y in payload.items %}{{ x }}{{ y }}{% endfor %}{% endfor %}';
const heavy = { payload: { items: Array.from({ length: 3_000 }, (_, i) => i) } };

const inApp = (content: string): Step => ({ _id: content.slice(0, 8), active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type: 'in_app', content } });
const subscriber = { _id: 'sub-1', subscriberId: 'ada', firstName: 'Ada' } as Subscriber;

/** A walk of `steps` with a budget that is already spent: what the walker does once a walk's budget runs out. */
function walkWithSpentBudget(steps: Step[], alone: boolean, spentAfter = 0) {
  const budget = renderBudget({ alone });
  const workflow = workflowRecord('env', { steps });
  // The budget is spent as soon as the walk has rendered `spentAfter` liquid steps.
  const counting = { ...budget, get spentMs() { return rendered >= spentAfter ? RENDER_BUDGET_MS : 0; }, set spentMs(_ms: number) { rendered++; } };
  let rendered = 0;
  const input: WalkInput = { workflow, notification: notificationRecord('env', { payload: { n: 1 } }), subscriber, actor: null, tenant: null, preferences: [], startIndex: 0, now: new Date('2026-03-02T10:00:00Z'), outsideSchedule: 'defer', renderBudget: counting };
  return walkSteps(input);
}

describe('the render budget of one walk', () => {
  it('a render is cut at the per-render limit, alone or not, and the walk hears it ran out; once the walk has spent its budget no liquid render starts; plain outputs still render', () => {
    const budget = renderBudget();
    expect(() => renderTemplate(LOOP, heavy, { budget })).toThrow(RenderBudgetSpent);
    expect(budget.spentMs).toBeLessThan(RENDER_BUDGET_MS);
    const alone = renderBudget({ alone: true });
    expect(() => renderTemplate(LOOP, heavy, { budget: alone })).toThrow(RenderBudgetSpent);
    expect(alone.spentMs).toBeLessThan(RENDER_BUDGET_MS);
    budget.spentMs = RENDER_BUDGET_MS;
    expect(() => renderTemplate('{{ payload.n | plus: 1 }}', { payload: { n: 1 } }, { budget })).toThrow(RenderBudgetSpent);
    expect(renderTemplate('Hi {{ payload.name }}', { payload: { name: 'Ada' } }, { budget })).toBe('Hi Ada');
  });

  it('every walk has a budget of its own, and the call meter sums them', () => {
    const meter = { spentMs: 0 };
    const first = renderBudget({ meter });
    const second = renderBudget({ meter });
    renderTemplate('{{ payload.n | plus: 1 }}', { payload: { n: 1 } }, { budget: first });
    renderTemplate('{{ payload.n | plus: 2 }}', { payload: { n: 1 } }, { budget: second });
    expect(first.spentMs).toBeGreaterThan(0);
    expect(meter.spentMs).toBeCloseTo(first.spentMs + second.spentMs, 6);
  });

  it('a walk in a shared batch that runs out stops before the step, to go on later; the steps before it are kept', async () => {
    const walk = await walkWithSpentBudget([inApp('{{ payload.n | plus: 1 }}'), inApp('{{ payload.n | plus: 2 }}')], false, 1);
    expect(walk.deliveries.map((d) => d.stepIndex)).toEqual([0]);
    expect(walk.spent).toEqual({ stepIndex: 1 });
    expect(walk.trace.at(-1)).toMatchObject({ stepIndex: 1, decision: 'held' });
  });

  it('alone, a walk that already rendered a step still goes on later; only a step that spends the budget on its own fails, with the reason', async () => {
    expect((await walkWithSpentBudget([inApp('{{ payload.n | plus: 1 }}'), inApp('{{ payload.n | plus: 2 }}')], true, 1)).spent).toEqual({ stepIndex: 1 });
    const failed = await walkWithSpentBudget([inApp('{{ payload.n | plus: 1 }}'), inApp('plain {{ payload.n }}')], true, 0);
    expect(failed.spent).toBeUndefined();
    expect(failed.trace[0]).toMatchObject({ stepIndex: 0, decision: 'failed' });
    expect(failed.trace[0]!.reason).toMatch(/ran out of render time: the walk's budget is spent/);
    // The walk goes on past the failed step, as after any render failure.
    expect(failed.deliveries.map((d) => d.stepIndex)).toEqual([1]);
  });

  it('a trigger whose template exceeds a walk\'s budget on its own goes to jobs, runs alone, and fails that step for each recipient with the reason; nothing is stored', async () => {
    const tidings = createTidings({ storage: memoryStorage() });
    await tidings.workflows.upsert({ name: 'Loop', triggers: [{ identifier: 'loop' }], steps: [{ template: { type: 'in_app', content: LOOP } }] });
    const to = Array.from({ length: 3 }, (_, i) => `s${i}`);
    const result = await tidings.trigger({ name: 'loop', to, payload: heavy.payload, transactionId: 'loop-1' });
    expect(result.status).toBe('processed');
    await tidings.runDue();
    const trace = await tidings.explain('loop-1');
    const reasons = trace.flatMap((record) => record.entries.map((entry) => `${entry.decision}: ${entry.reason}`));
    expect(new Set(trace.map((record) => record.subscriberId))).toEqual(new Set(to));
    expect(reasons.filter((reason) => reason.startsWith('failed: template failed to render: ran out of render time: one render took longer than its limit'))).toHaveLength(3);
    for (const id of to) expect((await tidings.messages.feed(id)).items).toEqual([]);
  });

  it('a preview renders a step that ran out of render time again, and names it among the steps not sent when it never renders: no step is left out', async () => {
    const tidings = createTidings({ storage: memoryStorage() });
    // The loop runs out of time after a step the walk rendered, so the walk is held there; alone, it runs out again.
    await tidings.workflows.upsert({ name: 'Two', triggers: [{ identifier: 'two' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}' } }, { template: { type: 'in_app', content: LOOP } }] });
    const preview = await tidings.preview({ workflowId: 'two', subscriber: { subscriberId: 'ada', firstName: 'Ada' }, payload: heavy.payload });
    expect(preview.steps.map((step) => [step.stepIndex, step.content])).toEqual([[0, 'Hi Ada']]);
    expect(preview.notSent).toEqual([expect.objectContaining({ stepIndex: 1, type: 'in_app', reason: expect.stringMatching(/render time/) })]);
  });
});
