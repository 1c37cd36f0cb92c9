import type { FaultScenario, ScenarioStep } from './fault-scenarios.js';
import type { WorkflowInput } from '../schemas/index.js';

const MINUTE = 60_000;
const inApp = (content: string) => ({ template: { type: 'in_app' as const, content } });
const wait = (_id: string, metadata: Record<string, unknown>) => ({ _id, template: { type: 'wait' as const }, metadata: metadata as never });
const workflow = (identifier: string, steps: unknown[]): WorkflowInput => ({ name: identifier, triggers: [{ identifier }], steps: steps as WorkflowInput['steps'] });

/**
 * What `explain` recorded of each run, step by step: a run resumed twice would have two `ran` entries
 * at its wait and its step after the wait made twice.
 */
const decisions = (transactions: readonly string[]) => async (storage: Parameters<NonNullable<FaultScenario['state']>>[0], env: string) => {
  const out: Record<string, string[]> = {};
  for (const transactionId of transactions) {
    out[transactionId] = (await storage.traces.list(env, transactionId)).flatMap((r) => r.entries.map((e) => `${e.stepIndex}:${e.type}:${e.decision}`)).sort();
  }
  return out;
};

const steps: ScenarioStep[] = [
  { call: (t) => t.signal('go', { subscriberId: 'ada', data: { k: 'x' } }) },
  {
    call: async (t) => {
      const [token] = await t.tokens.list({ transactionId: 'w-tok' });
      await t.tokens.complete(token!.id, { v: 1 });
    },
  },
  { advance: 10 * MINUTE },
];

/** Waits under faults: a signal, a token completion and a timeout each end their run's wait once. */
export const WAIT_SCENARIOS: readonly FaultScenario[] = [
  {
    name: 'waits: a signal, a token completion and a timeout each resume their waiting run exactly once; a message read escalates nothing; a cancelOn signal cancels a delayed run',
    subscribers: ['ada'],
    transactions: ['w-sig', 'w-tok', 'w-tmo', 'w-read', 'w-rem'],
    async setup(t) {
      await t.workflows.upsert(workflow('sig', [inApp('before'), wait('w', { event: 'go', match: 'data.k', timeout: '1h' }), inApp('after {{ steps.w.event.data.k }}')]));
      await t.workflows.upsert(workflow('tok', [wait('t', { token: true, timeout: '1h' }), inApp('token {{ steps.t.output.v }}')]));
      await t.workflows.upsert(workflow('tmo', [wait('w', { event: 'never', timeout: '10m' }), inApp('timed out {{ steps.w.matched }}')]));
      await t.workflows.upsert(workflow('read', [inApp('note'), wait('r', { event: 'message.read', timeout: '10m', onEvent: 'halt' }), inApp('reminder')]));
      await t.workflows.upsert({ ...workflow('rem', [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 5, unit: 'minutes' } }, inApp('reminder {{ payload.k }}')]), cancelOn: [{ event: 'stop', match: 'data.k' }] });
      for (const [name, transactionId] of [['sig', 'w-sig'], ['tok', 'w-tok'], ['tmo', 'w-tmo'], ['read', 'w-read'], ['rem', 'w-rem']] as const) await t.trigger({ name, to: 'ada', payload: { k: 'x' }, transactionId });
    },
    steps: [
      ...steps.slice(0, 2),
      {
        call: async (t) => {
          const [note] = await t.messages.byTransaction('w-read');
          await t.messages.markAs('ada', { messageId: note!._id, markAs: 'read' });
        },
      },
      { call: (t) => t.signal('stop', { subscriberId: 'ada', data: { k: 'x' } }) },
      ...steps.slice(2),
    ],
    state: decisions(['w-sig', 'w-tok', 'w-tmo', 'w-read', 'w-rem']),
  },
];
