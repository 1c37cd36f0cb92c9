import { describe, expect, it } from 'vitest';
import { ProviderError, type Provider } from '../src/index.js';
import { inAppWorkflow, testEngine } from './helpers.js';

const emailWorkflow = (identifier: string) => ({ name: identifier, triggers: [{ identifier }], steps: [{ template: { type: 'email' as const, subject: 's', content: 'c' } }] });

describe('frequency — what the windows accept, and what a cap counts inside one batch', () => {
  it('a window or ttl too long to store is refused naming the field, and breaks no batch', async () => {
    const { tidings } = testEngine();
    const huge = { amount: 1e300, unit: 'weeks' as const };
    await expect(tidings.caps.set([{ limit: 1, per: huge }])).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'caps[0].per.amount' }] });
    // Past year 9999 a window's hits would expire at once, and the throttle would never throttle.
    const throttle = (amount: number) => ({ name: 't', triggers: [{ identifier: 't' }], steps: [{ template: { type: 'throttle' as const }, metadata: { amount, unit: 'weeks' as const, limit: 1 } }, { template: { type: 'in_app' as const, content: 'x' } }] });
    for (const amount of [1e300, 500_000]) await expect(tidings.workflows.upsert(throttle(amount))).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'steps[0].metadata.amount' }] });
    for (const amount of [1e12, 5_000_000]) {
      const workflow = inAppWorkflow('x', 'hi', { steps: [{ template: { type: 'in_app', content: 'hi' }, ttl: { amount, unit: 'days' } }] });
      await expect(tidings.workflows.upsert(workflow)).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'steps[0].ttl.amount' }] });
    }
    // The longest accepted ones work.
    await tidings.caps.set([{ limit: 1, per: { amount: 3650, unit: 'days' } }]);
    await tidings.workflows.upsert(throttle(521));
    for (let i = 0; i < 2; i++) await tidings.trigger({ name: 't', to: 'ada' });
    await tidings.runDue();
    expect(await tidings.messages.counts('ada')).toMatchObject({ total: 1 });
  });

  it('a send that did not go (a provider’s final failure) leaves the cap’s room to the sends after it, in the walk and in the batch', async () => {
    const failing = { id: 'fail', channel: 'email', async send() { throw new ProviderError('no such mailbox', { retryable: false }); } } as unknown as Provider;
    const engine = (options = {}) => {
      const made = testEngine({ caps: [{ id: 'one-a-day', limit: 1, per: { amount: 1, unit: 'days' } }], providers: [failing], ...options });
      return made.tidings;
    };
    const prepare = async (tidings: ReturnType<typeof engine>) => {
      await tidings.integrations.upsert({ providerId: 'fail', channel: 'email', credentials: {} });
      await tidings.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
    };
    // One walk: the email fails for good, the in-app step after it is the first message sent.
    const walk = engine();
    await prepare(walk);
    await walk.workflows.upsert({ name: 'both', triggers: [{ identifier: 'both' }], steps: [{ template: { type: 'email', subject: 's', content: 'c' } }, { template: { type: 'in_app', content: 'x' } }] });
    const { transactionId } = await walk.trigger({ name: 'both', to: 'ada' });
    await walk.runDue();
    expect(await walk.messages.counts('ada')).toMatchObject({ total: 1 });
    expect((await walk.messages.byTransaction(transactionId!)).map((m) => [m.channel, m.status])).toEqual([['email', 'error'], ['in_app', 'sent']]);
    // Two workflows' jobs run one after the other in one batch, or in two batches: the same.
    for (const together of [true, false]) {
      const tidings = engine({ deliveryConcurrency: 1 });
      await prepare(tidings);
      await tidings.workflows.upsert(emailWorkflow('mail'));
      await tidings.workflows.upsert(inAppWorkflow('note'));
      await tidings.trigger({ name: 'mail', to: 'ada' });
      if (!together) await tidings.runDue();
      await tidings.trigger({ name: 'note', to: 'ada' });
      await tidings.runDue();
      expect(await tidings.messages.counts('ada'), together ? 'one batch' : 'two batches').toMatchObject({ total: 1 });
    }
  });
});
