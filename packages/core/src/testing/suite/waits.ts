import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings, type TidingsOptions } from '../../engine/create-tidings.js';
import type { Tidings } from '../../engine/tidings.js';
import { isTidingsError } from '../../errors.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0 } from '../fixtures.js';
import { scriptedCodeWorkflow } from '../scripted-code-workflow.js';
import type { WorkflowInput } from '../../schemas/index.js';
import type { Provider } from '../../delivery/provider.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const inApp = (content: string, _id?: string) => ({ ...(_id && { _id }), template: { type: 'in_app' as const, content } });
const wait = (_id: string, metadata: Record<string, unknown>) => ({ _id, template: { type: 'wait' as const }, metadata: metadata as never });

/** The in-app messages of a subscriber, oldest first. */
const inbox = async (tidings: Tidings, subscriberId: string) => (await tidings.messages.feed(subscriberId, { limit: 100 })).items.map((m) => m.content).reverse();

/** Every waits, signals and tokens behaviour, on the engine over the storage under test. */
export function waitsSuite({ get }: SuiteContext): void {
  describe('waits', () => {
    const engine = (options: Partial<TidingsOptions> = {}) => {
      const clock = manualClock(T0);
      return { clock, tidings: createTidings({ storage: get(), clock, environmentId: 'env-a', ...options }) };
    };
    const upsert = (tidings: Tidings, identifier: string, steps: unknown[], more: Partial<WorkflowInput> = {}) =>
      tidings.workflows.upsert({ name: identifier, triggers: [{ identifier }], steps: steps as WorkflowInput['steps'], ...more });

    it('wait — a JSON wait step suspends the run until a matching signal, whose data later steps read as steps.<id>.*', async () => {
      const { tidings, clock } = engine();
      await upsert(tidings, 'order', [inApp('placed {{ payload.orderId }}'), wait('paid', { event: 'order.paid', match: 'data.orderId', timeout: '1d' }), inApp('paid {{ steps.paid.event.data.amount }} ({{ steps.paid.matched }})')]);
      const { transactionId } = await tidings.trigger({ name: 'order', to: 'ada', payload: { orderId: 'o-1' } });
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['placed o-1']);
      expect((await tidings.pending({ subscriberId: 'ada' })).jobs.map((j) => j.kind)).toEqual(['wait']);
      // Another order's payment, and the right order's for another subscriber, end nothing.
      expect(await tidings.signal('order.paid', { data: { orderId: 'o-2', amount: 5 } })).toMatchObject({ resumed: 0 });
      expect(await tidings.signal('order.paid', { subscriberId: 'bob', data: { orderId: 'o-1', amount: 6 } })).toMatchObject({ resumed: 0 });
      clock.advance(MINUTE);
      expect(await tidings.signal('order.paid', { subscriberId: 'ada', data: { orderId: 'o-1', amount: 42 } })).toMatchObject({ resumed: 1 });
      // The same event again finds no waiting run: the run resumed once.
      expect(await tidings.signal('order.paid', { subscriberId: 'ada', data: { orderId: 'o-1', amount: 42 } })).toMatchObject({ resumed: 0 });
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['placed o-1', 'paid 42 (true)']);
      const entries = (await tidings.explain(transactionId!, 'ada')).flatMap((r) => r.entries).filter((e) => e.type === 'wait');
      expect(entries.map((e) => e.decision)).toEqual(['held', 'ran']);
      expect(entries[1]!.reason).toMatch(/event "order.paid" matched/);
      // The timeout job was brought forward and ended finding the wait gone: nothing of the run is pending.
      expect((await tidings.pending({ subscriberId: 'ada' })).jobs).toEqual([]);
      clock.advance(2 * 86_400_000);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toHaveLength(2);
    });

    it('wait — at its timeout the run goes on with { matched: false } (continue) or ends there, recorded in explain (halt)', async () => {
      const { tidings, clock } = engine();
      await upsert(tidings, 'go-on', [wait('w', { event: 'never', timeout: '1h' }), inApp('after: {{ steps.w.matched }}')]);
      await upsert(tidings, 'halt', [wait('w', { event: 'never', timeout: '1h', onTimeout: 'halt' }), inApp('never shown')]);
      await tidings.trigger({ name: 'go-on', to: 'ada' });
      const halted = await tidings.trigger({ name: 'halt', to: 'ada' });
      await tidings.runDue();
      clock.advance(HOUR - 1);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual([]);
      clock.advance(1);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['after: false']);
      const last = (await tidings.explain(halted.transactionId!, 'ada')).flatMap((r) => r.entries).at(-1)!;
      expect(last).toMatchObject({ type: 'wait', decision: 'skipped', reason: expect.stringMatching(/onTimeout: halt/) });
      expect((await tidings.pending({ subscriberId: 'ada' })).jobs).toEqual([]);
    });

    it('wait — the engine’s message.read of the run’s own message resumes it, in the commit that marks it read (onEvent: halt escalates only unread ones)', async () => {
      const { tidings, clock } = engine();
      await upsert(tidings, 'escalate', [inApp('please read', 'note'), wait('read', { event: 'message.read', timeout: '1h', onEvent: 'halt' }), inApp('reminder')]);
      await tidings.trigger({ name: 'escalate', to: 'ada' });
      await tidings.trigger({ name: 'escalate', to: 'bob' });
      await tidings.runDue();
      const [adaNote] = (await tidings.messages.feed('ada', { limit: 10 })).items;
      await tidings.messages.markAs('ada', { messageId: adaNote!._id, markAs: 'read' });
      clock.advance(HOUR);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['please read']);
      expect(await inbox(tidings, 'bob')).toEqual(['please read', 'reminder']);
    });

    it('wait — a provider’s status callbacks are the engine’s message.delivered and message.clicked for the run’s own email', async () => {
      const mail: Provider = {
        id: 'mailer',
        channel: 'email',
        send: async (message) => ({ id: `pm-${message.to.email}` }),
        readStatus: async (call) => (JSON.parse(call.body) as { id: string; state: 'delivered' | 'clicked' }[]).map((r, i) => ({ providerMessageId: r.id, state: r.state, at: T0, eventId: `${r.state}-${i}` })),
      };
      const { tidings } = engine({ providers: [mail], inlineInApp: false });
      const integration = await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await upsert(tidings, 'mailed', [
        { template: { type: 'email', subject: 'Hi', content: 'Hello' } },
        wait('delivered', { event: 'message.delivered', timeout: '1d' }),
        wait('clicked', { event: 'message.clicked', timeout: '1d' }),
        inApp('clicked the {{ steps.clicked.event.data.channel }} ({{ steps.delivered.matched }})'),
      ]);
      await tidings.trigger({ name: 'mailed', to: { subscriberId: 'ada', email: 'ada@example.com' } });
      await tidings.runDue();
      const report = (state: string) => tidings.providerWebhook(integration._id, { method: 'POST', url: 'https://app.example.com/hooks', headers: {}, body: JSON.stringify([{ id: 'pm-ada@example.com', state }]) });
      await report('delivered');
      await tidings.runDue();
      await report('clicked');
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['clicked the email (true)']);
    });

    it('wait — a signal before the wait began does not count, unless the step looks back', async () => {
      const { tidings, clock } = engine();
      await upsert(tidings, 'plain', [wait('w', { event: 'ready', timeout: '1h', onTimeout: 'halt' }), inApp('plain went on')]);
      await upsert(tidings, 'looking', [wait('w', { event: 'ready', timeout: '1h', onTimeout: 'halt', lookBack: '10m' }), inApp('looking went on')]);
      await tidings.signal('ready', { subscriberId: 'ada' });
      clock.advance(MINUTE);
      await tidings.trigger({ name: 'plain', to: 'ada' });
      await tidings.trigger({ name: 'looking', to: 'ada' });
      await tidings.runDue();
      await tidings.runDue();
      clock.advance(HOUR);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['looking went on']);
    });

    it('signals — one sent inside the app’s own storage.transaction is part of it: undone with it, resumes with its commit', async () => {
      const { tidings } = engine();
      await upsert(tidings, 'w', [wait('w', { event: 'go', timeout: '1h' }), inApp('went on')]);
      await tidings.trigger({ name: 'w', to: 'ada' });
      await tidings.runDue();
      await expect(
        tidings.storage.transaction(async (tx) => {
          await tidings.signal('go', { subscriberId: 'ada', transaction: tx });
          throw new Error('the app changed its mind');
        }),
      ).rejects.toThrow('the app changed its mind');
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual([]);
      const outcome = await tidings.storage.transaction((tx) => tidings.signal('go', { subscriberId: 'ada', transaction: tx }));
      expect(outcome.resumed).toBe(1);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['went on']);
    });

    it('signals — racing signals from two engines resume each of 40 waiting runs exactly once', async () => {
      const { tidings, clock } = engine();
      const other = createTidings({ storage: get(), clock, environmentId: 'env-a' });
      await upsert(tidings, 'w', [wait('w', { event: 'go', match: 'data.n', timeout: '1h' }), inApp('n {{ payload.n }}')]);
      await tidings.triggerBulk(Array.from({ length: 40 }, (_, n) => ({ name: 'w', to: 'ada', payload: { n } })));
      await tidings.runDue();
      const send = (t: Tidings) => Promise.all(Array.from({ length: 40 }, (_, n) => t.signal('go', { subscriberId: 'ada', data: { n } })));
      const outcomes = (await Promise.all([send(tidings), send(other)])).flat();
      expect(outcomes.reduce((sum, o) => sum + o.resumed, 0)).toBe(40);
      await Promise.all([tidings.runDue(), other.runDue()]);
      expect((await inbox(tidings, 'ada')).sort()).toEqual(Array.from({ length: 40 }, (_, n) => `n ${n}`).sort());
    });

    it('signals — bad input is refused naming the field, recording nothing', async () => {
      const { tidings } = engine();
      await expect(tidings.signal('', {})).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed') && /signal name/.test((e as Error).message));
      await expect(tidings.signal('go', { data: 'x' as never })).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed') && (e as unknown as { issues: { path: string }[] }).issues[0]!.path === 'data');
      await expect(tidings.signal('go', { subscriberId: 'a', extra: 1 } as never)).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
      await expect(upsert(tidings, 'bad', [wait('w', { event: 'go', timeout: 'soon' })])).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed') && /steps\[0\]\.metadata\.timeout/.test((e as Error).message));
    });

    it('tokens — waitForToken makes a token the app lists; completing it resumes the run with the output, once; the signed URL completes it too', async () => {
      const { tidings } = engine({ links: { baseUrl: 'https://notify.example.com' } });
      await upsert(tidings, 'approve', [wait('ok', { token: true, timeout: '1d' }), inApp('approved by {{ steps.ok.output.by }} ({{ steps.ok.id }}, {{ steps.ok.url | size }})')]);
      const first = await tidings.trigger({ name: 'approve', to: 'ada' });
      await tidings.trigger({ name: 'approve', to: 'bob' });
      await tidings.runDue();
      const [token] = await tidings.tokens.list({ transactionId: first.transactionId! });
      expect(token).toMatchObject({ status: 'waiting', subscriberId: 'ada', stepId: 'ok', url: expect.stringMatching(/^https:\/\/notify\.example\.com\/v1\/tokens\/tok_[\w-]+\/complete\?sig=/) });
      expect(await tidings.tokens.complete(token!.id, { by: 'grace' })).toMatchObject({ status: 'completed', output: { by: 'grace' } });
      await expect(tidings.tokens.complete(token!.id, { by: 'again' })).rejects.toSatisfy((e) => isTidingsError(e, 'conflict'));
      await expect(tidings.tokens.complete('tok_none')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual([`approved by grace (${token!.id}, ${token!.url.length})`]);
      const [bobs] = await tidings.tokens.list({ subscriberId: 'bob' });
      const sig = new URL(bobs!.url).searchParams.get('sig')!;
      await expect(tidings.tokens.completeSigned(bobs!.id, `${sig.slice(1)}x`, {})).rejects.toSatisfy((e) => isTidingsError(e, 'unauthorized'));
      await tidings.tokens.completeSigned(bobs!.id, sig, { by: 'link' });
      await expect(tidings.tokens.completeSigned(bobs!.id, sig, { by: 'link' })).rejects.toSatisfy((e) => isTidingsError(e, 'conflict'));
      await tidings.runDue();
      expect(await inbox(tidings, 'bob')).toEqual([`approved by link (${bobs!.id}, ${bobs!.url.length})`]);
    });

    it('cancelOn — a matching signal cancels that subscriber’s pending run (a delay, a wait), recorded in explain; others go on', async () => {
      const { tidings, clock } = engine();
      const cancelOn = [{ event: 'task.resolved', match: 'data.taskId' }];
      // A signal before the workflows exist: what the engine read of them then is forgotten when they are saved.
      await tidings.signal('task.resolved', { subscriberId: 'ada', data: { taskId: 'none' } });
      await upsert(tidings, 'remind', [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, inApp('reminder {{ payload.taskId }}')], { cancelOn });
      await upsert(tidings, 'await', [wait('w', { event: 'never', timeout: '1h' }), inApp('waited {{ payload.taskId }}')], { cancelOn });
      const ada = await tidings.trigger({ name: 'remind', to: ['ada', 'bob'], payload: { taskId: 't-1' } });
      await tidings.trigger({ name: 'remind', to: 'ada', payload: { taskId: 't-2' } });
      await tidings.trigger({ name: 'await', to: 'ada', payload: { taskId: 't-1' } });
      await tidings.runDue();
      expect(await tidings.signal('task.resolved', { subscriberId: 'ada', data: { taskId: 't-1' } })).toMatchObject({ cancelled: 2 });
      clock.advance(HOUR);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['reminder t-2']);
      expect(await inbox(tidings, 'bob')).toEqual(['reminder t-1']);
      const entries = (await tidings.explain(ada.transactionId!, 'ada')).flatMap((r) => r.entries);
      expect(entries.some((e) => e.stepId === 'cancelOn' && /cancelled by the event "task.resolved"/.test(e.reason))).toBe(true);
    });

    it('cancel — tidings.cancel of a waiting run deletes its wait: no signal resumes it, its token reads cancelled', async () => {
      const { tidings } = engine();
      await upsert(tidings, 'w', [wait('w', { event: 'go', timeout: '1h' }), inApp('went on')]);
      await upsert(tidings, 't', [wait('t', { token: true, timeout: '1h' }), inApp('approved')]);
      const waiting = await tidings.trigger({ name: 'w', to: 'ada' });
      const approving = await tidings.trigger({ name: 't', to: 'ada' });
      await tidings.runDue();
      await tidings.cancel(waiting.transactionId!);
      await tidings.cancel(approving.transactionId!);
      expect(await tidings.signal('go', { subscriberId: 'ada' })).toMatchObject({ resumed: 0 });
      const [token] = await tidings.tokens.list({ subscriberId: 'ada' });
      expect(token!.status).toBe('cancelled');
      await expect(tidings.tokens.complete(token!.id, {})).rejects.toSatisfy((e) => isTidingsError(e, 'conflict'));
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual([]);
      expect((await tidings.pending({ subscriberId: 'ada' })).jobs).toEqual([]);
    });

    it('wait — a code workflow’s waitForEvent step resolves to { matched: true, event } or { matched: false }', async () => {
      const seen: unknown[] = [];
      const code = scriptedCodeWorkflow('code-wait', [
        { stepId: 'paid', type: 'wait', outputs: () => ({ event: 'order.paid', match: 'data.orderId', timeout: '1h' }) },
        {
          stepId: 'note',
          type: 'in_app',
          outputs: (_payload, results) => {
            seen.push(results.get('paid'));
            return { body: `matched ${String(results.get('paid')?.['matched'])}` };
          },
        },
      ]);
      const { tidings, clock } = engine({ workflows: [code] });
      await tidings.trigger({ name: 'code-wait', to: 'ada', payload: { orderId: 'o-1' } });
      await tidings.trigger({ name: 'code-wait', to: 'bob', payload: { orderId: 'o-2' } });
      await tidings.runDue();
      await tidings.signal('order.paid', { data: { orderId: 'o-1', total: 3 } });
      await tidings.runDue();
      clock.advance(HOUR);
      await tidings.runDue();
      expect(await inbox(tidings, 'ada')).toEqual(['matched true']);
      expect(await inbox(tidings, 'bob')).toEqual(['matched false']);
      expect(seen).toContainEqual({ matched: true, event: { name: 'order.paid', data: { orderId: 'o-1', total: 3 }, at: T0 } });
    });
  });
}
