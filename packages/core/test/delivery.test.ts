import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { createTidings, isTidingsError, type Message } from '../src/index.js';
import { inAppWorkflow, testEngine } from './helpers.js';

describe('walking steps', () => {
  it('a regular delay holds the rest of the walk until due; overrides.delay replaces it', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert({
      name: 'd',
      triggers: [{ identifier: 'd' }],
      steps: [
        { template: { type: 'in_app', content: 'first' } },
        { template: { type: 'delay' }, metadata: { type: 'regular', amount: 2, unit: 'hours' } },
        { template: { type: 'in_app', content: 'second' } },
      ],
    });
    const plain = await tidings.trigger({ name: 'd', to: 'ada' });
    const overridden = await tidings.trigger({ name: 'd', to: 'bob', overrides: { delay: { amount: 5, unit: 'minutes' } } });
    await tidings.runDue();
    const contents = async (tx: string) => (await tidings.messages.byTransaction(tx)).map((m) => m.content);
    expect(await contents(plain.transactionId!)).toEqual(['first']);
    clock.advance(5 * 60_000);
    await tidings.runDue();
    expect(await contents(overridden.transactionId!)).toEqual(['first', 'second']);
    expect(await contents(plain.transactionId!)).toEqual(['first']);
    clock.advance(2 * 3_600_000);
    await tidings.runDue();
    expect(await contents(plain.transactionId!)).toEqual(['first', 'second']);
  });

  it('a scheduled delay waits for the payload date; a past date runs at once; a bad date is an error at trigger time', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert({
      name: 's',
      triggers: [{ identifier: 's' }],
      steps: [
        { template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'send.at' }, shouldStopOnFail: true },
        { template: { type: 'in_app', content: 'after' } },
      ],
    });
    const future = await tidings.trigger({ name: 's', to: 'a', payload: { send: { at: '2026-06-01T13:00:00Z' } } });
    const past = await tidings.trigger({ name: 's', to: 'b', payload: { send: { at: '2020-01-01T00:00:00Z' } } });
    const [bad] = await tidings.triggerBulk([{ name: 's', to: 'c', payload: { send: { at: 'tomorrow-ish' } }, transactionId: 'bad' }]);
    expect(bad).toEqual({ acknowledged: true, status: 'error', error: ['payload.send.at must hold an ISO 8601 date for the scheduled delay'], transactionId: 'bad' });
    await expect(tidings.trigger({ name: 's', to: 'c', payload: { send: { at: 'tomorrow-ish' } } })).rejects.toThrow('payload.send.at must hold an ISO 8601 date for the scheduled delay');
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(past.transactionId!)).toHaveLength(1);
    expect(await tidings.messages.byTransaction(future.transactionId!)).toHaveLength(0);
    clock.set('2026-06-01T13:00:00Z');
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(future.transactionId!)).toHaveLength(1);
    expect(await tidings.messages.byTransaction('bad')).toHaveLength(0);
    expect(await tidings.subscribers.get('c')).toBeNull();
  });

  it('a scheduled delay after a digest is checked when the walk reaches it: a bad date fails the step there', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert({
      name: 'ds',
      triggers: [{ identifier: 'ds' }],
      steps: [
        { template: { type: 'digest' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } },
        { template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'send.at' }, shouldStopOnFail: true },
        { template: { type: 'in_app', content: 'after' } },
      ],
    });
    const result = await tidings.trigger({ name: 'ds', to: 'a', payload: {} });
    expect(result.status).toBe('processed');
    await tidings.runDue();
    clock.advance(60_000);
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(result.transactionId!)).toHaveLength(0);
    const trace = await tidings.explain(result.transactionId!);
    expect(trace.at(-1)!.entries.map((e) => e.decision)).toEqual(['failed']);
  });

  it('inactive steps are skipped; cancel removes pending jobs', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert({
      name: 'c',
      triggers: [{ identifier: 'c' }],
      steps: [
        { active: false, template: { type: 'in_app', content: 'never' } },
        { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'days' } },
        { template: { type: 'in_app', content: 'later' } },
      ],
    });
    const result = await tidings.trigger({ name: 'c', to: 'ada' });
    await tidings.runDue();
    expect(await tidings.cancel(result.transactionId!)).toEqual({ cancelled: 1 });
    expect(await tidings.messages.byTransaction(result.transactionId!)).toEqual([]);
    await expect(tidings.cancel('unknown')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
  });

  it('channels without a provider produce a warning message, not a silent drop', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert({
      name: 'e',
      triggers: [{ identifier: 'e' }],
      steps: [{ template: { type: 'email', subject: 'Hi {{ subscriber.firstName }}', content: [{ type: 'text', content: 'Body {{ payload.n }}' }] } }],
    });
    const result = await tidings.trigger({ name: 'e', to: { subscriberId: 'ada', firstName: 'Ada', email: 'ada@x.io' }, payload: { n: 3 } });
    await tidings.runDue();
    const [message] = await tidings.messages.byTransaction(result.transactionId!);
    expect(message).toMatchObject({ channel: 'email', status: 'warning', subject: 'Hi Ada', email: 'ada@x.io', content: [{ type: 'text', content: 'Body 3' }], errorText: 'no active email integration' });
  });

  it('a step with nowhere to go is not_sent in explain, with the reason, and fires message.warning', async () => {
    const sent: string[] = [];
    const { tidings } = testEngine({ providers: [{ id: 'sendgrid', channel: 'email', send: async (message) => (sent.push(message.messageId), { id: 'x' }) }] });
    await tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'k' }, active: true });
    await tidings.workflows.upsert({
      name: 'w',
      triggers: [{ identifier: 'w' }],
      steps: [{ template: { type: 'email', subject: 's', content: 'c' } }, { template: { type: 'sms', content: 'text' } }, { template: { type: 'in_app', content: 'bell' } }],
    });
    const warned: { reason: string; channel: string }[] = [];
    tidings.events.on('message.warning', ({ message, reason }) => warned.push({ reason, channel: message.channel }));
    const result = await tidings.trigger({ name: 'w', to: 'ada' });
    await tidings.runDue();
    const [record] = await tidings.explain(result.transactionId!, 'ada');
    expect(record!.entries.map((e) => [e.type, e.decision, e.reason])).toEqual([
      ['email', 'not_sent', expect.stringContaining('the subscriber has no email address')],
      ['sms', 'not_sent', 'no active sms integration'],
      ['in_app', 'delivered', 'rendered for in_app'],
    ]);
    expect(warned).toEqual([
      { channel: 'email', reason: expect.stringContaining('the subscriber has no email address') },
      { channel: 'sms', reason: 'no active sms integration' },
    ]);
    expect(sent).toEqual([]);
  });
});

describe('messages', () => {
  async function withMessages() {
    const env = testEngine();
    await env.tidings.workflows.upsert({
      name: 'cta',
      triggers: [{ identifier: 'cta' }],
      steps: [{ template: { type: 'in_app', content: 'Invite', cta: { action: { buttons: [{ type: 'primary', content: 'Accept' }, { type: 'secondary', content: 'Decline' }] } } } }],
    });
    await env.tidings.triggerBulk([{ name: 'cta', to: 'ada' }, { name: 'cta', to: 'ada' }, { name: 'cta', to: 'bob' }]);
    await env.tidings.runDue();
    const ada = (await env.tidings.messages.feed('ada')).items;
    const bob = (await env.tidings.messages.feed('bob')).items;
    return { ...env, ada, bob };
  }

  it('markAs with another subscriber’s id is not_found and changes nothing', async () => {
    const { tidings, ada, bob } = await withMessages();
    await expect(tidings.messages.markAs('ada', { messageId: [ada[0]!._id, bob[0]!._id], markAs: 'read' })).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    expect(await tidings.messages.counts('ada')).toEqual({ total: 2, unread: 2, unseen: 2 });
    await expect(tidings.messages.markAs('ghost', { messageId: 'x', markAs: 'read' })).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    await expect(tidings.messages.markAs('ada', { messageId: [], markAs: 'read' })).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
  });

  it('markAs takes comma-separated ids, emits events, and unread keeps seen', async () => {
    const { tidings, clock, ada } = await withMessages();
    const seen: Message[] = [];
    tidings.events.on('message.unread', ({ message }) => seen.push(message));
    await tidings.messages.markAs('ada', { messageId: ada.map((m) => m._id).join(','), markAs: 'read' });
    clock.advance(1000);
    const [m] = await tidings.messages.markAs('ada', { messageId: ada[0]!._id, markAs: 'unread' });
    expect(m).toMatchObject({ read: false, seen: true, lastReadDate: clock.now().toISOString() });
    expect(seen).toHaveLength(1);
  });

  it('action sets the CTA status and result and leaves read/seen alone', async () => {
    const { tidings, ada } = await withMessages();
    expect(ada[0]!.cta.action?.status).toBe('pending');
    const updated = await tidings.messages.action('ada', ada[0]!._id, 'primary', { status: 'done', payload: { answer: 'yes' } });
    expect(updated.cta.action).toMatchObject({ status: 'done', result: { type: 'primary', payload: { answer: 'yes' } }, buttons: [{ content: 'Accept' }, { content: 'Decline' }] });
    expect(updated).toMatchObject({ read: false, seen: false });
    await expect(tidings.messages.action('ada', ada[0]!._id, 'tertiary', { status: 'done' })).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
  });
});

describe('job loop', () => {
  it('start() delivers without runDue and wakes on new triggers; stop() returns once idle', async () => {
    // An idle loop sleeps an hour: the message arrives within the test's time only if the trigger woke it.
    const tidings = createTidings({ storage: memoryStorage(), maxIdleMs: 3_600_000, inlineInApp: false });
    await tidings.workflows.upsert(inAppWorkflow('live', 'live!'));
    tidings.start();
    const delivered = new Promise<Message>((resolve) => tidings.events.on('message.created', ({ message }) => resolve(message)));
    await tidings.trigger({ name: 'live', to: 'ada' });
    const message = await delivered;
    expect(message.content).toBe('live!');
    await tidings.stop();
  });

  it('stop() lets the batch in hand commit and claims no more: the rest stays due, unleased, for another process', async () => {
    const storage = memoryStorage();
    const claims: number[] = [];
    let stopped: Promise<void> | null = null;
    const claimDue = storage.jobs.claimDue.bind(storage.jobs);
    storage.jobs.claimDue = async (options) => {
      const jobs = await claimDue(options);
      // The webhook lane's claims (none due here) are not the walks' batches.
      if (options.kinds) return jobs;
      claims.push(jobs.length);
      stopped ??= tidings.stop();
      return jobs;
    };
    const tidings = createTidings({ storage, batchSize: 2, maxIdleMs: 10_000, inlineInApp: false });
    await tidings.workflows.upsert(inAppWorkflow('many', 'hi'));
    for (const subscriberId of ['a', 'b', 'c', 'd', 'e', 'f']) await tidings.trigger({ name: 'many', to: subscriberId });
    tidings.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await stopped;
    expect(claims).toEqual([2]);
    const left = await storage.jobs.list(tidings.environmentId);
    expect(left).toHaveLength(4);
    expect(left.every((job) => job.lockedBy === null && job.attempts === 0)).toBe(true);
    expect(await tidings.runDue()).toBe(4);
  });
});
