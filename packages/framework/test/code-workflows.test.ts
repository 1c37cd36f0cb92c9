/**
 * Workflows written in code, run by the engine on every backend: replay with stored step results,
 * delays and digests as jobs, skip, escalation on an unread in-app message, a custom step run once,
 * payload schemas, workflow preferences and critical, explain, and the catalog's read-only view.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { workflow } from '../src/index.js';
import { backends, engines } from './engines.js';

const HOUR = 3_600_000;

for (const backend of backends('tidings_codewf')) {
  describe.skipIf(backend.skip)(`code workflows: ${backend.name}`, () => {
    const engine = engines(backend);

    it('in-app alone is stored by the trigger (its resolver run before the trigger\'s transaction, never inside it), with its buttons, data and severity; the catalog lists it read-only', async () => {
      const welcome = workflow(
        'welcome',
        async ({ step, payload, subscriber }) => {
          await step.inApp('hello', () => ({
            subject: `Welcome, ${subscriber.firstName}`,
            body: `Your plan: ${payload.plan}`,
            primaryAction: { label: 'Start', redirect: { url: '/start' } },
            data: { plan: payload.plan },
          }));
        },
        { payloadSchema: z.object({ plan: z.string().default('free') }), severity: 'high', name: 'Welcome' },
      );
      const { tidings } = await engine([welcome]);
      await tidings.trigger({ name: 'welcome', to: 'ada', payload: {} });
      await tidings.runDue();
      const [message] = (await tidings.messages.feed('ada')).items;
      expect(message).toMatchObject({ subject: 'Welcome, Ada', content: 'Your plan: free', severity: 'high', data: { plan: 'free' } });
      expect(message?.cta.action?.buttons).toEqual([{ type: 'primary', content: 'Start', url: '/start' }]);

      expect((await tidings.workflows.list()).map((w) => w.identifier)).toContain('welcome');
      expect(await tidings.workflows.get('welcome')).toMatchObject({ name: 'Welcome', steps: [{ _id: 'hello', template: { type: 'in_app' } }] });
      await expect(tidings.workflows.upsert({ name: 'Mine', triggers: [{ identifier: 'welcome' }], steps: [] })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('"welcome"') });
    });

    it('a payload the schema refuses is an error naming each field, and nothing is stored', async () => {
      const order = workflow('order', async ({ step, payload }) => void (await step.inApp('n', () => ({ body: `#${payload.id} × ${payload.qty}` }))), {
        payloadSchema: { type: 'object', properties: { id: { type: 'string' }, qty: { type: 'number', default: 1 } }, required: ['id'], additionalProperties: false },
      });
      const { tidings } = await engine([order]);
      await expect(tidings.trigger({ name: 'order', to: 'ada', payload: { qty: 'many' } })).rejects.toMatchObject({
        code: 'validation_failed',
        issues: expect.arrayContaining([{ path: 'payload.id', message: 'is required' }, expect.objectContaining({ path: 'payload.qty' })]),
      });
      expect((await tidings.messages.feed('ada')).items).toEqual([]);
      await tidings.trigger({ name: 'order', to: 'ada', payload: { id: 'A1' } });
      await tidings.runDue();
      expect((await tidings.messages.feed('ada')).items[0]?.content).toBe('#A1 × 1');
    });

    it('escalation: the email after a delay goes out only while the in-app message is unread; the custom step ran once', async () => {
      let customRuns = 0;
      const escalate = workflow(
        'escalate',
        async ({ step, payload }) => {
          const ref = await step.custom('reference', async () => ({ ref: `R-${++customRuns}` }), { outputSchema: z.object({ ref: z.string() }) });
          const note = await step.inApp('note', () => ({ body: `Comment on ${payload.post} (${ref.ref})` }));
          await step.delay('wait', () => ({ amount: 1, unit: 'hours' }));
          await step.email('mail', () => ({ subject: `Unread: ${payload.post}`, body: `<p>${ref.ref}</p>` }), { skip: () => note.read });
        },
        { payloadSchema: z.object({ post: z.string() }) },
      );
      const { tidings, clock, sent, drain } = await engine([escalate]);
      const unread = await tidings.trigger({ name: 'escalate', to: 'ada', payload: { post: 'p1' }, transactionId: 'tx-unread' });
      const read = await tidings.trigger({ name: 'escalate', to: 'ada', payload: { post: 'p2' }, transactionId: 'tx-read' });
      expect(unread.status).toBe('processed');
      await drain();
      const feed = (await tidings.messages.feed('ada')).items;
      expect(feed.map((m) => m.content).sort()).toEqual(['Comment on p1 (R-1)', 'Comment on p2 (R-2)']);
      await tidings.messages.markAs('ada', { messageId: feed.find((m) => m.content.toString().includes('p2'))!._id, markAs: 'read' });
      expect(sent).toEqual([]);

      clock.advance(HOUR);
      await drain();
      expect(sent).toEqual([{ channel: 'email', to: 'ada@example.com', subject: 'Unread: p1', content: expect.stringContaining('R-1') }]);
      expect(customRuns).toBe(2);
      expect(read.transactionId).toBe('tx-read');
      const explained = (await tidings.explain('tx-read')).flatMap((r) => r.entries).map((e) => [e.stepId, e.decision]);
      expect(explained).toEqual([
        ['reference', 'ran'],
        ['note', 'delivered'],
        ['wait', 'delayed'],
        ['mail', 'skipped'],
      ]);
    });

    it('a digest gathers the events of its window; the step after it gets them all', async () => {
      const digest = workflow(
        'comments',
        async ({ step }) => {
          const { events } = await step.digest('gather', () => ({ amount: 30, unit: 'minutes', digestKey: 'postId' }));
          await step.inApp('summary', () => ({ body: `${events.length} comments: ${events.map((e) => e.payload['text']).join(', ')}` }));
        },
        { payloadSchema: z.object({ postId: z.string(), text: z.string() }) },
      );
      const { tidings, clock, drain } = await engine([digest]);
      for (const [postId, text] of [['a', 'one'], ['a', 'two'], ['b', 'other']] as const) {
        await tidings.trigger({ name: 'comments', to: 'ada', payload: { postId, text } });
        clock.advance(60_000);
        await drain();
      }
      expect((await tidings.messages.feed('ada')).items).toEqual([]);
      clock.advance(30 * 60_000);
      await drain();
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content).sort()).toEqual(['1 comments: other', '2 comments: one, two']);
    });

    it('workflow preferences are the defaults: a channel off stays off until the subscriber turns it on; critical passes opt-outs', async () => {
      const quiet = workflow('quiet', async ({ step }) => {
        await step.inApp('a', () => ({ body: 'in-app' }));
        await step.sms('b', () => ({ body: 'sms' }));
      }, { preferences: { channels: { sms: { enabled: false } } } });
      const urgent = workflow('urgent', async ({ step }) => void (await step.inApp('a', () => ({ body: 'urgent' }))), { critical: true });
      const { tidings, sent, drain } = await engine([quiet, urgent]);
      await tidings.trigger({ name: 'quiet', to: 'ada' });
      await drain();
      expect(sent).toEqual([]);
      await tidings.preferences.update('ada', { workflowId: 'quiet', channels: { sms: true } });
      await tidings.trigger({ name: 'quiet', to: 'ada' });
      await drain();
      expect(sent).toEqual([{ channel: 'sms', to: '+15550100', content: 'sms' }]);

      await tidings.preferences.update('ada', { channels: { in_app: false } });
      await tidings.trigger({ name: 'urgent', to: 'ada' });
      await drain();
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toContain('urgent');
    });

    it('fallbackTo: a push step with nowhere to go sends the same words by SMS; naming the step’s own channel fails the walk, saying so', async () => {
      const alert = workflow('alert', async ({ step }) => {
        await step.push('device', () => ({ subject: 'Alert', body: 'db1 is down' }), { fallbackTo: 'sms' });
      });
      const loop = workflow('loop', async ({ step }) => {
        await step.sms('text', () => ({ body: 'hi' }), { fallbackTo: 'sms' });
      });
      const { tidings, sent, drain } = await engine([alert, loop]);
      await tidings.trigger({ name: 'alert', to: 'ada', transactionId: 'tx-alert' });
      await drain();
      expect(sent).toEqual([{ channel: 'sms', to: '+15550100', content: 'db1 is down' }]);
      expect(JSON.stringify(await tidings.explain('tx-alert'))).toContain('fell back to sms');

      await tidings.trigger({ name: 'loop', to: 'ada', transactionId: 'tx-loop' });
      await drain();
      const [entry] = (await tidings.explain('tx-loop')).flatMap((r) => r.entries);
      expect(entry).toMatchObject({ stepId: 'text', decision: 'failed', reason: expect.stringContaining('fallbackTo: must be another channel than "sms"') });
    });

    it('a step the run declares that discovery did not see fails the walk with a clear error, and sends nothing', async () => {
      const shifty = workflow('shifty', async ({ step, payload }) => {
        if (payload.extra) await step.inApp('hidden', () => ({ body: 'hidden' }));
        await step.inApp('shown', () => ({ body: 'shown' }));
      }, { payloadSchema: z.object({ extra: z.boolean().default(false) }) });
      const { tidings, drain } = await engine([shifty]);
      await tidings.trigger({ name: 'shifty', to: 'ada', payload: { extra: true }, transactionId: 'tx-shifty' });
      await drain();
      expect((await tidings.messages.feed('ada')).items).toEqual([]);
      const [entry] = (await tidings.explain('tx-shifty')).flatMap((r) => r.entries);
      expect(entry).toMatchObject({ stepId: 'hidden', decision: 'failed', reason: expect.stringContaining('not a step the workflow declared') });
    });
    it('debounce: a burst of triggers runs the function once, with the last payload, once the period passed quietly; a bad option is named when the workflow is made', async () => {
      const runs: number[] = [];
      const typing = workflow(
        'typing',
        async ({ step, payload }) => {
          await step.inApp('n', () => (runs.push(payload.seq), { body: `seq ${payload.seq}` }));
        },
        { payloadSchema: z.object({ doc: z.string(), seq: z.number() }), debounce: { key: '{{ payload.doc }}', period: { amount: 1, unit: 'minutes' } } },
      );
      const { tidings, clock } = await engine([typing]);
      for (const seq of [1, 2, 3]) {
        await tidings.trigger({ name: 'typing', to: 'ada', payload: { doc: 'd1', seq } });
        clock.advance(30_000);
        await tidings.runDue();
      }
      expect(runs).toEqual([]);
      clock.advance(30_000);
      await tidings.runDue();
      expect(runs).toEqual([3]);
      expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['seq 3']);
      expect(() => workflow('bad', async () => undefined, { debounce: { period: { amount: 1, unit: 'fortnights' } } as never })).toThrow(/debounce\.period\.unit/);
    });
  });
}
