/**
 * A JSON workflow's `branch` step: ordered conditions (the first that passes wins), a default, steps
 * not chosen skipped with the reason in explain, the choice kept across a delay (a resumed walk does
 * not choose again), `exit` ending the run after the chosen steps, and branches checked when saved.
 */
import { describe, expect, it } from 'vitest';
import type { FilterInput, WorkflowInput } from '../src/index.js';
import { testEngine } from './helpers.js';

const when = (field: string, operator: 'EQUAL' | 'LARGER', value: string): FilterInput => ({ value: 'AND', children: [{ on: 'subscriber', field, operator, value }] });
const note = (_id: string) => ({ _id, template: { type: 'in_app' as const, content: _id } });

const workflow = (identifier: string, exit: boolean): WorkflowInput => ({
  name: identifier,
  triggers: [{ identifier }],
  steps: [
    {
      _id: 'plan',
      template: { type: 'branch' },
      branch: {
        branches: [
          { name: 'paying', conditions: [when('data.plan', 'EQUAL', 'pro')], steps: ['pro-note', 'pro-later'] },
          { name: 'seats', conditions: [when('data.seats', 'LARGER', '0')], steps: ['trial-note'] },
        ],
        default: ['free-note'],
        exit,
      },
    },
    note('pro-note'),
    { _id: 'wait', template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } },
    note('pro-later'),
    note('trial-note'),
    note('free-note'),
    note('everyone'),
  ],
});

async function run(exit: boolean) {
  const { tidings, clock } = testEngine();
  await tidings.workflows.upsert(workflow('plans', exit));
  const { transactionId } = await tidings.trigger({
    name: 'plans',
    to: [
      { subscriberId: 'pro', data: { plan: 'pro', seats: 5 } },
      { subscriberId: 'trial', data: { plan: 'trial', seats: 2 } },
      { subscriberId: 'free', data: { plan: 'free', seats: 0 } },
    ],
  });
  await tidings.runDue();
  // The pro subscriber's plan changes during the delay: the branch chosen before it holds.
  await tidings.subscribers.upsert({ subscriberId: 'pro', data: { plan: 'free', seats: 0 } });
  clock.advance(3_600_000);
  await tidings.runDue();
  const messages = await tidings.messages.byTransaction(transactionId!);
  const got = (subscriberId: string) => messages.filter((m) => m.subscriberId === subscriberId).map((m) => m.content).sort();
  const entries = async (subscriberId: string) => (await tidings.explain(transactionId!, subscriberId)).flatMap((r) => r.entries);
  return { got, entries };
}

describe('branch step', () => {
  it('takes the first branch whose conditions pass, else the default, and keeps its choice across a delay', async () => {
    const { got, entries } = await run(false);
    expect(got('pro')).toEqual(['everyone', 'pro-later', 'pro-note']);
    // The trial subscriber also has seats; the free one matches neither branch.
    expect(got('trial')).toEqual(['everyone', 'trial-note']);
    expect(got('free')).toEqual(['everyone', 'free-note']);
    const pro = await entries('pro');
    expect(pro.find((e) => e.stepId === 'plan')).toMatchObject({ type: 'branch', decision: 'ran', reason: 'took paying: steps "pro-note", "pro-later"; the run goes on after them' });
    expect(pro.find((e) => e.stepId === 'free-note')).toMatchObject({ decision: 'skipped', reason: 'not chosen by branch "plan" (it took paying)' });
    const free = await entries('free');
    expect(free.find((e) => e.stepId === 'plan')).toMatchObject({ reason: 'took default: steps "free-note"; the run goes on after them', failedFilter: { on: 'subscriber', field: 'data.plan' } });
    expect(free.find((e) => e.stepId === 'pro-later')).toMatchObject({ decision: 'skipped', reason: 'not chosen by branch "plan" (it took default)' });
  });

  it('exit ends the run after the chosen steps, each later step skipped with the reason', async () => {
    const { got, entries } = await run(true);
    expect(got('pro')).toEqual(['pro-later', 'pro-note']);
    expect(got('trial')).toEqual(['trial-note']);
    expect(got('free')).toEqual(['free-note']);
    expect((await entries('trial')).find((e) => e.stepId === 'everyone')).toMatchObject({ decision: 'skipped', reason: 'branch "plan" took seats, which ends the run after its steps' });
  });

  it('a branch naming a step that is not after it is refused when saved, naming the field; nothing is stored', async () => {
    const { tidings } = testEngine();
    const bad = workflow('bad', false);
    bad.steps![0]!.branch!.branches[0]!.steps = ['pro-note', 'nowhere'];
    await expect(tidings.workflows.upsert(bad)).rejects.toThrow(/steps\.0\.branch\.branches\.0\.steps\.1.*"nowhere"|steps\[0\]\.branch\.branches\[0\]\.steps\[1\].*"nowhere"/);
    await expect(tidings.workflows.upsert({ ...workflow('bad2', false), steps: [{ template: { type: 'http' } }] })).rejects.toThrow(/http.*needs \{ url \}/);
    expect(await tidings.workflows.get('bad')).toBeNull();
  });
});
