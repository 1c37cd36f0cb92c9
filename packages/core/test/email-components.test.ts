import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings } from '../src/index.js';
import { componentProps } from '../src/email/component-props.js';
import { renderComponent } from '../src/email/render-component.js';
import { ALONE_RENDER_RUNS, RENDER_BUDGET_MS, RenderBudgetSpent, renderBudget } from '../src/templates/render.js';
import { walkSteps } from '../src/walk/step-list-walker.js';
import { notificationRecord, workflowRecord } from '../src/testing/fixtures.js';
import type { Step, Subscriber } from '../src/schemas/index.js';
import type { Storage } from '../src/storage.js';

const Welcome = ({ name, items }: { name: string; items: string[] }) =>
  createElement('html', null, createElement('body', null, createElement('h1', null, `Welcome, ${name}`), createElement('ul', null, items.map((item) => createElement('li', { key: item }, item)))));

/** A component that holds the CPU for `ms`, as a heavy template would. */
const slow = (ms: number) => () => {
  const until = performance.now() + ms;
  while (performance.now() < until);
  return createElement('p', null, 'slow');
};

describe('email components', () => {
  it('props: each text is liquid (not HTML-escaped: React escapes), a text that is one output alone gives the value itself', () => {
    const variables = { subscriber: { firstName: 'Ana <3' }, payload: { items: ['a', 'b'], total: 12.5, nested: { deep: true } } };
    expect(componentProps({ name: 'Hi {{ subscriber.firstName }}', items: '{{ payload.items }}', total: ' {{ payload.total }} ', nested: '{{payload.nested}}', list: ['{{ payload.items[1] }}', 3], missing: '{{ payload.nope }}', fixed: false }, variables)).toEqual({
      name: 'Hi Ana <3',
      items: ['a', 'b'],
      total: 12.5,
      nested: { deep: true },
      list: ['b', 3],
      missing: undefined,
      fixed: false,
    });
    expect(componentProps(undefined, variables)).toEqual({});
  });

  it('renders a component to its document with @react-email/render, its time counted in the walk budget and the call meter', async () => {
    const meter = { spentMs: 0 };
    const budget = renderBudget({ meter });
    const html = await renderComponent('Welcome', Welcome, { name: 'Ana <3', items: ['one', 'two'] }, budget);
    expect(html).toMatch(/^<!DOCTYPE html/);
    expect(html).toContain('<h1>Welcome, Ana &lt;3</h1>');
    expect(html).toContain('<li>one</li><li>two</li>');
    expect(budget.spentMs).toBeGreaterThan(0);
    expect(meter.spentMs).toBe(budget.spentMs);
  });

  it('a spent budget starts no render; a render that took more than was left is "later"; a component that throws is named', async () => {
    let called = false;
    const spent = renderBudget();
    spent.spentMs = RENDER_BUDGET_MS;
    await expect(renderComponent('Spy', () => ((called = true), null), {}, spent)).rejects.toBeInstanceOf(RenderBudgetSpent);
    expect(called).toBe(false);
    const nearly = renderBudget();
    nearly.spentMs = RENDER_BUDGET_MS - 5;
    await expect(renderComponent('Slow', slow(30), {}, nearly)).rejects.toBeInstanceOf(RenderBudgetSpent);
    expect(nearly.spentMs).toBeGreaterThan(RENDER_BUDGET_MS);
    const broken = () => {
      throw new Error('no name given');
    };
    await expect(renderComponent('Broken', broken, {}, renderBudget())).rejects.toThrow('the email component "Broken" failed to render: no name given');
  });

  it('in a walk: a component over what is left of a shared batch\'s budget holds the step for later; alone, at the first step, it fails the step with the reason', async () => {
    const step: Step = { _id: 'mail', active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type: 'email', subject: 's', component: 'Slow' } };
    const subscriber = { _id: 'sub-1', subscriberId: 'ada', email: 'ada@x.test' } as Subscriber;
    const walk = (alone: boolean) => {
      const budget = renderBudget({ alone });
      budget.spentMs = RENDER_BUDGET_MS - 5;
      return walkSteps({ workflow: workflowRecord('env', { steps: [step] }), notification: notificationRecord('env', {}), subscriber, actor: null, tenant: null, preferences: [], startIndex: 0, now: new Date('2026-03-02T10:00:00Z'), outsideSchedule: 'defer', renderBudget: budget, look: { brand: null, layouts: new Map(), components: { Slow: slow(30) } } });
    };
    const shared = await walk(false);
    expect(shared.spent).toEqual({ stepIndex: 0 });
    expect(shared.trace[0]).toMatchObject({ decision: 'held' });
    // A render the machine starved of CPU is "later" even alone: walk again until one had the CPU.
    let alone = await walk(true);
    for (const until = Date.now() + 120_000; alone.trace[0]?.decision === 'held' && Date.now() < until; ) alone = await walk(true);
    expect(alone.deliveries).toEqual([]);
    expect(alone.trace[0]).toMatchObject({ decision: 'failed', reason: expect.stringContaining('ran out of render time') });
  });

  it('a component renders while no storage transaction is open: in the walk, before the batch commits', async () => {
    const base = memoryStorage();
    let open = 0;
    let transactions = 0;
    const storage: Storage = {
      ...base,
      async transaction(fn) {
        open++;
        transactions++;
        try {
          return await base.transaction(fn);
        } finally {
          open--;
        }
      },
    };
    const openAtRender: number[] = [];
    const Probe = ({ name }: { name: string }) => (openAtRender.push(open), createElement('p', null, name));
    const sent: string[] = [];
    const tidings = createTidings({ storage, providers: [{ id: 'mailer', channel: 'email', send: async (m) => (sent.push(m.html ?? ''), { id: 'p-1' }) }], emailComponents: { Probe } });
    await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
    await tidings.workflows.upsert({ name: 'probe', triggers: [{ identifier: 'probe' }], steps: [{ template: { type: 'email', subject: 's', component: 'Probe', props: { name: '{{ subscriber.firstName }}' } } }] });
    await tidings.trigger({ name: 'probe', to: { subscriberId: 'ada', email: 'ada@x.test', firstName: 'Ada' } });
    const before = transactions;
    await tidings.runDue();
    expect(sent[0]).toContain('<p>Ada</p>');
    expect(openAtRender).toEqual([0]);
    expect(transactions).toBeGreaterThan(before);
  });

  it('a step that runs out of render time alone runs again alone, and fails only on its ALONE_RENDER_RUNS-th run: a machine slow for a moment fails no email', async () => {
    const sent: string[] = [];
    let renders = 0;
    // Over the whole walk budget on its first ALONE_RENDER_RUNS - 1 renders (a starved moment), then quick.
    const Flaky = ({ name }: { name: string }) => (++renders < ALONE_RENDER_RUNS ? slow(RENDER_BUDGET_MS + 50)() : createElement('p', null, name));
    const Heavy = slow(RENDER_BUDGET_MS + 50);
    const tidings = createTidings({ storage: memoryStorage(), providers: [{ id: 'mailer', channel: 'email', send: async (m) => (sent.push(m.html ?? ''), { id: `p-${sent.length}` }) }], emailComponents: { Flaky, Heavy } });
    await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
    for (const component of ['Flaky', 'Heavy']) await tidings.workflows.upsert({ name: component, triggers: [{ identifier: component.toLowerCase() }], steps: [{ template: { type: 'email', subject: 's', component, props: { name: '{{ subscriber.firstName }}' } } }] });
    await tidings.trigger({ name: 'flaky', to: { subscriberId: 'ada', email: 'ada@x.test', firstName: 'Ada' }, transactionId: 'flaky-1' });
    while ((await tidings.runDue()) > 0);
    expect(renders).toBe(ALONE_RENDER_RUNS);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('<p>Ada</p>');
    expect((await tidings.messages.byTransaction('flaky-1')).map((m) => m.status)).toEqual(['sent']);
    await tidings.trigger({ name: 'heavy', to: { subscriberId: 'bob', email: 'bob@x.test' }, transactionId: 'heavy-1' });
    while ((await tidings.runDue()) > 0);
    const decisions = (await tidings.explain('heavy-1')).flatMap((record) => record.entries.map((entry) => entry.decision));
    // A run the machine starved (the process had the CPU for less than half the render) is held once more.
    expect(decisions.filter((d) => d === 'held').length).toBeGreaterThanOrEqual(ALONE_RENDER_RUNS - 1);
    expect(decisions.filter((d) => d === 'failed')).toHaveLength(1);
    expect(sent).toHaveLength(1);
  });

  it('createTidings refuses what is not a component, naming it', () => {
    expect(() => createTidings({ storage: memoryStorage(), emailComponents: { Welcome: 'Welcome' as never } })).toThrow('emailComponents.Welcome: must be a React component');
    expect(() => createTidings({ storage: memoryStorage(), emailComponents: { 'bad name': Welcome as never } })).toThrow('emailComponents.bad name: a name must be letters');
  });
});
