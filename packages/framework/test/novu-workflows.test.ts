/**
 * Workflows made with @novu/framework's own `workflow()`, run through `novuWorkflows()` (its Client,
 * in process), against the same source run by Tidings' `workflow()`: the same feed and the same sent
 * messages, on every backend. Also: a custom step runs once per subscriber, nothing is printed or
 * fetched, unsupported steps are refused, and what @novu/framework does differently is pinned.
 */
import http from 'node:http';
import https from 'node:https';
import { SeverityLevelEnum, workflow as novuWorkflow, type Workflow as NovuWorkflow } from '@novu/framework';
import { createTidings, manualClock, type CodeWorkflow, type Message } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { novuWorkflows, workflow as tidingsWorkflow } from '../src/index.js';
import { backends, capture, engines } from './engines.js';

const HOUR = 3_600_000;

// ---- One workflow source, for either `workflow()` ---------------------------------------------------

type Skip = { skip?: () => boolean };
/** The steps the shared source uses, as both `workflow()`s type them. */
interface SharedStep {
  inApp(stepId: string, resolve: () => { subject?: string; body: string; data?: Record<string, unknown> }, options?: Skip): Promise<{ seen: boolean; read: boolean }>;
  email(stepId: string, resolve: () => { subject: string; body: string }, options?: Skip): Promise<unknown>;
  delay(stepId: string, resolve: () => { amount: number; unit: 'hours' }): Promise<unknown>;
  digest(stepId: string, resolve: () => { amount: number; unit: 'minutes'; digestKey: string }): Promise<{ events: { payload: Record<string, unknown> }[] }>;
  custom(stepId: string, resolve: () => Promise<{ ref: string }>, options: { outputSchema: z.ZodType<{ ref: string }> }): Promise<{ ref: string }>;
}
interface SharedInput {
  step: SharedStep;
  payload: Record<string, unknown>;
  subscriber: { subscriberId?: string; firstName?: string | null };
}
const orderSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, qty: { type: 'number', default: 1 } },
  required: ['id'],
  additionalProperties: false,
} as const;
interface SharedOptions {
  payloadSchema?: z.ZodType<Record<string, unknown>> | typeof orderSchema;
  name?: string;
  description?: string;
  tags?: string[];
  severity?: SeverityLevelEnum.HIGH;
  preferences?: { all?: { enabled?: boolean; readOnly?: boolean }; channels?: { sms?: { enabled: boolean } } };
}
/** `workflow()` of either package, as the shared source calls it. */
type WorkflowFn<W> = (id: string, execute: (input: SharedInput) => Promise<void>, options?: SharedOptions) => W;

/** The test's workflows, built with the `workflow` given; `effects` counts each custom step's runs. */
function define<W>(workflow: WorkflowFn<W>, effects: { customRuns: number }) {
  return {
    welcome: workflow(
      'welcome',
      async ({ step, payload, subscriber }) => {
        await step.inApp('hello', () => ({ subject: `Welcome, ${subscriber.firstName}`, body: `Your plan: ${String(payload['plan'])}`, data: { plan: payload['plan'], seats: payload['seats'] } }));
      },
      { payloadSchema: z.object({ plan: z.string().default('free'), seats: z.number().default(1) }), name: 'Welcome', description: 'Says hello', tags: ['onboarding'], severity: SeverityLevelEnum.HIGH },
    ),
    escalate: workflow(
      'escalate',
      async ({ step, payload }) => {
        const ref = await step.custom('reference', async () => ({ ref: `R-${++effects.customRuns}` }), { outputSchema: z.object({ ref: z.string() }) });
        const note = await step.inApp('note', () => ({ body: `Comment on ${String(payload['post'])} (${ref.ref})` }));
        await step.delay('wait', () => ({ amount: 1, unit: 'hours' }));
        await step.email('mail', () => ({ subject: `Unread: ${String(payload['post'])}`, body: `<p>${ref.ref}</p>` }), { skip: () => note.read });
      },
      { payloadSchema: z.object({ post: z.string() }) },
    ),
    comments: workflow(
      'comments',
      async ({ step }) => {
        const { events } = await step.digest('gather', () => ({ amount: 30, unit: 'minutes', digestKey: 'postId' }));
        await step.inApp('summary', () => ({ body: `${events.length} comments: ${events.map((e) => String(e.payload['text'])).join(', ')}` }));
      },
      { payloadSchema: z.object({ postId: z.string(), text: z.string() }) },
    ),
    signup: workflow('signup', async ({ step, payload }) => void (await step.inApp('n', () => ({ body: `${String(payload['email'])} (${String(payload['age'])})` }))), {
      payloadSchema: z.object({ email: z.email(), age: z.number().int().min(18) }),
    }),
    order: workflow('order', async ({ step, payload }) => void (await step.inApp('n', () => ({ body: `#${String(payload['id'])} × ${String(payload['qty'])}` }))), { payloadSchema: orderSchema }),
    branchy: workflow(
      'branchy',
      async ({ step, payload }) => {
        // Discovery runs with an empty payload: it sees "intro" and "main", never "hidden".
        if (payload['short'] !== true) await step.inApp('intro', () => ({ body: 'intro' }));
        if (payload['sneaky'] === true) await step.inApp('hidden', () => ({ body: 'hidden' }));
        if (payload['broken'] === true) throw new Error('the function broke');
        await step.inApp('main', () => {
          if (payload['boom'] === true) throw new Error('the resolver broke');
          return { body: 'main' };
        });
        if (payload['late'] === true) await step.inApp('late', () => ({ body: 'late' }));
      },
      { payloadSchema: z.object({ short: z.boolean().optional(), sneaky: z.boolean().optional(), broken: z.boolean().optional(), boom: z.boolean().optional(), late: z.boolean().optional() }) },
    ),
    quiet: workflow(
      'quiet',
      async ({ step }) => {
        await step.inApp('a', () => ({ body: 'in-app' }));
        await step.email('b', () => ({ subject: 'quiet', body: 'email' }));
      },
      { preferences: { all: { enabled: true, readOnly: true }, channels: { sms: { enabled: false } } } },
    ),
  };
}
type Defined = ReturnType<typeof define<CodeWorkflow>>;
type Name = keyof Defined;

/** The two ways of running the same source: Tidings' own `workflow()`, and @novu/framework's through `novuWorkflows()`. */
const implementations: { name: string; build: (effects: { customRuns: number }) => Record<Name, CodeWorkflow> }[] = [
  { name: 'native', build: (effects) => define(tidingsWorkflow, effects) },
  {
    name: 'novu',
    build: (effects) => {
      const defined = define<NovuWorkflow>(novuWorkflow, effects);
      const names = Object.keys(defined) as Name[];
      const wrapped = novuWorkflows(names.map((n) => defined[n]));
      return Object.fromEntries(names.map((n, i) => [n, wrapped[i]!])) as Record<Name, CodeWorkflow>;
    },
  },
];

// ---- The engine ----------------------------------------------------------------------------------


/** A feed item without what differs between two engines anyway (ids, transaction ids), in a stable order. */
const comparable = (items: readonly Message[]) =>
  items
    .map((m) => Object.fromEntries(Object.entries(m).filter(([key]) => !key.startsWith('_') && key !== 'transactionId')))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

for (const backend of backends('tidings_novuwf')) {
  describe.skipIf(backend.skip)(`@novu/framework workflows: ${backend.name}`, () => {
    const engineOn = engines(backend);

    async function engine(workflows: readonly CodeWorkflow[]) {
      const made = await engineOn(workflows, [
        { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com', phone: '+15550100' },
        { subscriberId: 'bob', firstName: 'Bob', email: 'bob@example.com' },
      ]);
      /** What the subscriber's feed holds, comparably. */
      const feed = async (subscriberId = 'ada') => comparable((await made.tidings.messages.feed(subscriberId)).items);
      return { ...made, feed };
    }

    /** Runs a scenario once per implementation: both must observe the same; returns the native observation. */
    async function same<T>(scenario: (workflows: Record<Name, CodeWorkflow>, effects: { customRuns: number }) => Promise<T>): Promise<T> {
      const seen: T[] = [];
      for (const implementation of implementations) {
        const effects = { customRuns: 0 };
        seen.push(await scenario(implementation.build(effects), effects));
      }
      expect(seen[1], 'novuWorkflows() observed what workflow() did').toEqual(seen[0]);
      return seen[0]!;
    }

    it('in-app with payload defaults from a zod schema: the same message, subject, data and severity', async () => {
      const observed = await same(async (w) => {
        const { tidings, feed } = await engine([w.welcome]);
        await tidings.trigger({ name: 'welcome', to: 'ada', payload: { seats: 3, unknown: 'dropped' } });
        await tidings.runDue();
        const view = (await tidings.workflows.get('welcome'))!;
        return { feed: await feed(), view: { name: view.name, description: view.description, tags: view.tags, severity: view.severity, critical: view.critical, steps: view.steps.map((s) => [s._id, s.template.type]) } };
      });
      expect(observed.feed).toEqual([expect.objectContaining({ subject: 'Welcome, Ada', content: 'Your plan: free', data: { plan: 'free', seats: 3 }, severity: 'high', channel: 'in_app' })]);
      expect(observed.view).toEqual({ name: 'Welcome', description: 'Says hello', tags: ['onboarding'], severity: 'high', critical: false, steps: [['hello', 'in_app']] });
    });

    it('escalation: the email after an hour goes out only while the in-app message is unread, the same on both', async () => {
      const observed = await same(async (w, effects) => {
        const { tidings, clock, sent, drain, feed } = await engine([w.escalate]);
        await tidings.trigger({ name: 'escalate', to: 'ada', payload: { post: 'p1' }, transactionId: 'tx-unread' });
        await tidings.trigger({ name: 'escalate', to: 'ada', payload: { post: 'p2' }, transactionId: 'tx-read' });
        await drain();
        const before = await tidings.messages.feed('ada');
        await tidings.messages.markAs('ada', { messageId: before.items.find((m) => String(m.content).includes('p2'))!._id, markAs: 'read' });
        const sentBefore = [...sent];
        clock.advance(HOUR);
        await drain();
        const explained = (await tidings.explain('tx-read')).flatMap((r) => r.entries).map((e) => [e.stepId, e.decision]);
        return { sentBefore, sent, feed: await feed(), customRuns: effects.customRuns, explained };
      });
      expect(observed.sentBefore).toEqual([]);
      expect(observed.sent).toEqual([{ channel: 'email', to: 'ada@example.com', subject: 'Unread: p1', content: expect.stringContaining('R-1') }]);
      expect(observed.feed.map((m) => [m['content'], m['read']])).toEqual([
        ['Comment on p1 (R-1)', false],
        ['Comment on p2 (R-2)', true],
      ]);
      expect(observed.customRuns).toBe(2);
      expect(observed.explained).toEqual([
        ['reference', 'ran'],
        ['note', 'delivered'],
        ['wait', 'delayed'],
        ['mail', 'skipped'],
      ]);
    });

    it('a digest gathers the events of its window per key; the step after it reads them all', async () => {
      const observed = await same(async (w) => {
        const { tidings, clock, drain, feed } = await engine([w.comments]);
        for (const [postId, text] of [['a', 'one'], ['a', 'two'], ['b', 'other']] as const) {
          await tidings.trigger({ name: 'comments', to: 'ada', payload: { postId, text } });
          clock.advance(60_000);
          await drain();
        }
        const early = await feed();
        clock.advance(30 * 60_000);
        await drain();
        return { early, feed: await feed() };
      });
      expect(observed.early).toEqual([]);
      expect(observed.feed.map((m) => m['content'])).toEqual(['1 comments: other', '2 comments: one, two']);
    });

    it('a payload the schema refuses is the same error on both, naming each field, and nothing is stored', async () => {
      const observed = await same(async (w) => {
        const { tidings, feed } = await engine([w.signup, w.order]);
        const refusal = async (name: string, payload: Record<string, unknown>) => {
          const error: unknown = await tidings.trigger({ name, to: 'ada', payload }).then(
            () => null,
            (e: unknown) => e,
          );
          const { code, issues } = (error ?? {}) as { code?: unknown; issues?: { path: string }[] };
          return { code, paths: (issues ?? []).map((i) => i.path).sort() };
        };
        const refused = [await refusal('signup', { email: 'not-an-email', age: 12 }), await refusal('order', { qty: 'many' })];
        const empty = await feed();
        await tidings.trigger({ name: 'order', to: 'ada', payload: { id: 'A1', extra: true } });
        await tidings.runDue();
        return { refused, empty, feed: await feed() };
      });
      expect(observed.refused).toEqual([
        { code: 'validation_failed', paths: ['payload.age', 'payload.email'] },
        { code: 'validation_failed', paths: ['payload.id', 'payload.qty'] },
      ]);
      expect(observed.empty).toEqual([]);
      expect(observed.feed.map((m) => [m['content'], m['payload']])).toEqual([['#A1 × 1', { id: 'A1', qty: 1 }]]);
    });

    it('a custom step runs once per subscriber, however often the function is replayed', async () => {
      const observed = await same(async (w, effects) => {
        const { tidings, clock, sent, drain } = await engine([w.escalate]);
        await tidings.trigger({ name: 'escalate', to: ['ada', 'bob'], payload: { post: 'p' } });
        await drain();
        const afterTrigger = effects.customRuns;
        clock.advance(HOUR);
        await drain();
        clock.advance(HOUR);
        await drain();
        return { afterTrigger, customRuns: effects.customRuns, sent: sent.map((s) => s.to).sort() };
      });
      expect(observed).toEqual({ afterTrigger: 2, customRuns: 2, sent: ['ada@example.com', 'bob@example.com'] });
    });

    it('a step left out with `if` is passed over; a step discovery never saw, or a throw, fails the walk there: the same on both', async () => {
      const observed = await same(async (w) => {
        const { tidings, drain, feed } = await engine([w.branchy]);
        const decisions: Record<string, unknown> = {};
        for (const [tx, payload] of [['full', {}], ['short', { short: true }], ['sneaky', { sneaky: true }], ['broken', { broken: true }], ['boom', { boom: true }], ['late', { late: true }]] as const) {
          await tidings.trigger({ name: 'branchy', to: 'ada', payload, transactionId: `tx-${tx}` });
          await drain();
          decisions[tx] = (await tidings.explain(`tx-${tx}`)).flatMap((r) => r.entries).map((e) => [e.stepId, e.decision]);
        }
        return { decisions, feed: (await feed()).map((m) => m['content']) };
      });
      expect(observed.decisions).toEqual({
        full: [['intro', 'delivered'], ['main', 'delivered']],
        short: [['main', 'delivered']],
        sneaky: [['intro', 'delivered'], ['hidden', 'failed']],
        broken: [['intro', 'delivered'], ['', 'failed']],
        boom: [['intro', 'delivered'], ['main', 'failed']],
        late: [['intro', 'delivered'], ['main', 'delivered'], ['late', 'failed']],
      });
      expect(observed.feed).toEqual(['intro', 'intro', 'intro', 'intro', 'intro', 'main', 'main', 'main']);
    });

    it('preferences: read-only makes the workflow critical, a channel off stays off, the same on both', async () => {
      const observed = await same(async (w) => {
        const { tidings, sent, drain } = await engine([w.quiet]);
        const view = (await tidings.workflows.get('quiet'))!;
        await tidings.preferences.update('ada', { channels: { email: false } });
        await tidings.trigger({ name: 'quiet', to: 'ada' });
        await drain();
        return { critical: view.critical, preferenceSettings: view.preferenceSettings, sent: sent.map((s) => s.channel) };
      });
      expect(observed).toEqual({ critical: true, preferenceSettings: { in_app: true, email: true, sms: false, chat: true, push: true }, sent: ['email'] });
    });
  });
}

describe('novuWorkflows(): running @novu/framework in process', () => {
  it('prints nothing and makes no network call while discovering and running', async () => {
    const spies = [
      vi.spyOn(globalThis, 'fetch'),
      vi.spyOn(http, 'request'),
      vi.spyOn(https, 'request'),
      ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method)),
      vi.spyOn(process.stdout, 'write'),
    ];
    try {
      const effects = { customRuns: 0 };
      const w = novuWorkflows(Object.values(define<NovuWorkflow>(novuWorkflow, effects)));
      const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-03-02T10:00:00Z'), workflows: w, providers: capture().providers });
      await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
      await tidings.trigger({ name: 'escalate', to: 'ada', payload: { post: 'p' } });
      await tidings.trigger({ name: 'welcome', to: 'ada', payload: {} });
      while ((await tidings.runDue()) > 0);
      expect(effects.customRuns).toBe(1);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('a throttle step in @novu/framework 2.13’s shape: at most `threshold` runs per window, the same under both workflow()s, the count handed to the next step', async () => {
    const counts = async (make: typeof tidingsWorkflow | typeof novuWorkflow, wrap: (w: never) => CodeWorkflow[]) => {
      const limited = (make as (id: string, run: (input: { step: { throttle: Function; inApp: Function } }) => Promise<void>) => unknown)('limited', async ({ step }) => {
        const gate = (await step.throttle('gate', () => ({ type: 'fixed', amount: 1, unit: 'hours', threshold: 2 }))) as { executionCount: number; threshold: number };
        await step.inApp('note', () => ({ body: `run ${gate.executionCount} of ${gate.threshold}` }));
      });
      const clock = manualClock('2026-03-02T10:00:00Z');
      const tidings = createTidings({ storage: memoryStorage(), clock, workflows: wrap(limited as never) });
      for (let i = 0; i < 3; i++) await tidings.trigger({ name: 'limited', to: 'ada' });
      while ((await tidings.runDue()) > 0);
      clock.advance(HOUR);
      await tidings.trigger({ name: 'limited', to: 'ada' });
      while ((await tidings.runDue()) > 0);
      return (await tidings.messages.feed('ada', { limit: 10 })).items.map((m) => m.content).sort();
    };
    const ours = await counts(tidingsWorkflow, (w) => [w]);
    const novus = await counts(novuWorkflow, (w) => novuWorkflows([w]));
    expect(ours).toEqual(['run 1 of 2', 'run 1 of 2', 'run 2 of 2']);
    expect(novus).toEqual(ours);
  });

  it('refuses a step Tidings does not run, naming it, when the engine discovers the workflow', async () => {
    const paging = novuWorkflow('paging', async ({ step }) => {
      await step.inApp('note', () => ({ body: 'paged' }));
      await step.tool('pagerduty', () => ({ body: 'page' }) as never);
    });
    const [code] = novuWorkflows([paging]);
    await expect(code!.discover()).rejects.toThrow(/step "pagerduty" is a "tool" step/);
    const tidings = createTidings({ storage: memoryStorage(), workflows: [code!] });
    await expect(tidings.workflows.list()).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('"pagerduty"') });
  });

  it('hands the function Novu-shaped input: the subscriber, the context resolved as { id, data }, env', async () => {
    const seen: unknown[] = [];
    const probe = novuWorkflow('probe', async ({ step, subscriber, context, env, payload }) => {
      seen.push({ subscriber, context, env, payload });
      await step.inApp('n', () => ({ body: 'x' }));
    });
    const [code] = novuWorkflows([probe]);
    await code!.discover();
    const run = await code!.runNext({
      payload: { dropped: true },
      subscriber: { subscriberId: 'ada', firstName: 'Ada', lastName: null, email: 'ada@example.com', phone: null, avatar: null, locale: 'en', timezone: null, data: { plan: 'pro' }, channels: [], isOnline: null, lastOnlineAt: null } as unknown as Parameters<CodeWorkflow['runNext']>[0]['subscriber'],
      context: { tenant: { id: 'acme', data: { plan: 'pro' } } },
      environmentId: 'env',
      results: new Map(),
    });
    expect(run).toEqual({ kind: 'step', stepId: 'n', type: 'in_app', skipped: false, outputs: { body: 'x' } });
    expect(seen.at(-1)).toEqual({
      subscriber: { subscriberId: 'ada', firstName: 'Ada', lastName: null, email: 'ada@example.com', phone: null, avatar: null, locale: 'en', data: { plan: 'pro' } },
      context: { tenant: { id: 'acme', data: { plan: 'pro' } } },
      env: {},
      payload: {},
    });
  });

  it('where @novu/framework differs from workflow(): HTML sanitised, link targets defaulted, a skipped digest, the function run on past its step', async () => {
    type Ran = 'native' | 'novu';
    const after: Ran[] = [];
    const seenEvents: { ran: Ran; events: unknown }[] = [];
    interface DiffStep {
      digest(stepId: string, resolve: () => { amount: number; unit: 'minutes' }, options: Skip): Promise<{ events?: unknown }>;
      inApp(stepId: string, resolve: () => { body: string; primaryAction: { label: string; redirect: { url: string } } }): Promise<unknown>;
    }
    const source = (ran: Ran) => async ({ step }: { step: DiffStep }) => {
      const { events } = await step.digest('gather', () => ({ amount: 5, unit: 'minutes' }), { skip: () => true });
      seenEvents.push({ ran, events });
      await step.inApp('n', () => ({ body: `<p onclick="steal()">Tom &amp; Jerry</p><script>steal()</script>`, primaryAction: { label: 'Open', redirect: { url: '/inbox' } } }));
      after.push(ran);
    };
    const native = tidingsWorkflow('diff', source('native'));
    const [novu] = novuWorkflows([novuWorkflow('diff', source('novu'))]);
    await native.discover();
    await novu!.discover();
    after.length = 0;
    seenEvents.length = 0;
    // The digest was skipped (the engine keeps `{}` for it); the in-app step after it is next.
    const input = { payload: {}, subscriber: { subscriberId: 'ada' } as Parameters<CodeWorkflow['runNext']>[0]['subscriber'], context: {}, environmentId: 'env', results: new Map([['gather', {}]]) };
    const [a, b] = [await native.runNext(input), await novu!.runNext(input)];
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(a).toEqual({ kind: 'step', stepId: 'n', type: 'in_app', skipped: false, outputs: { body: `<p onclick="steal()">Tom &amp; Jerry</p><script>steal()</script>`, primaryAction: { label: 'Open', redirect: { url: '/inbox' } } } });
    // Email and in-app outputs go through sanitize-html; redirects get Novu's default target.
    expect(b).toEqual({ kind: 'step', stepId: 'n', type: 'in_app', skipped: false, outputs: { body: '<p>Tom &amp; Jerry</p>', primaryAction: { label: 'Open', redirect: { url: '/inbox', target: '_self' } } } });
    // Novu's state must satisfy the digest's result schema, so a skipped digest reads as no events, not `{}`.
    expect(seenEvents).toEqual([
      { ran: 'native', events: undefined },
      { ran: 'novu', events: [] },
    ]);
    // workflow() stops the function at the step it evaluates; @novu/framework lets it run on (its later steps return undefined).
    expect(after).toEqual(['novu']);
  });
});
