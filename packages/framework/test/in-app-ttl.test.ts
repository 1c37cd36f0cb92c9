import { describe, expect, it } from 'vitest';
import { memoryStorage } from '@tidings/memory';
import { workflow } from '../src/index.js';
import { engines } from './engines.js';

const MINUTE = 60_000;

describe('step.inApp’s ttl (memory: the engine’s expiry is tested on every backend in the conformance suite)', () => {
  const engine = engines({ name: 'memory', create: () => memoryStorage() });

  it('the message expires ttl after it is made (or at the trigger’s expiresAt, when earlier); a ttl on another channel fails the walk, saying so', async () => {
    const brief = workflow('brief', async ({ step }) => {
      await step.inApp('note', () => ({ body: 'brief' }), { ttl: { amount: 10, unit: 'minutes' } });
    });
    const wrong = workflow('wrong', async ({ step }) => {
      // @ts-expect-error ttl is an in-app option
      await step.email('mail', () => ({ subject: 's', body: 'b' }), { ttl: { amount: 1, unit: 'days' } });
    });
    const { tidings, clock, drain } = await engine([brief, wrong]);
    const first = await tidings.trigger({ name: 'brief', to: 'ada' });
    const second = await tidings.trigger({ name: 'brief', to: 'ada', expiresAt: '2026-03-02T10:05:00Z' });
    await tidings.runDue();
    const expiry = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId)).map((m) => m.expiresAt);
    expect(await expiry(first.transactionId!)).toEqual(['2026-03-02T10:10:00.000Z']);
    expect(await expiry(second.transactionId!)).toEqual(['2026-03-02T10:05:00.000Z']);
    clock.advance(10 * MINUTE);
    expect((await tidings.messages.feed('ada')).items).toEqual([]);
    await drain();
    expect(await expiry(first.transactionId!)).toEqual([]);

    await tidings.trigger({ name: 'wrong', to: 'ada', transactionId: 'tx-wrong' });
    await drain();
    const [entry] = (await tidings.explain('tx-wrong')).flatMap((r) => r.entries);
    expect(entry).toMatchObject({ stepId: 'mail', decision: 'failed', reason: expect.stringContaining('ttl: only in-app messages expire') });
  });
});
