import { createTidings, type Credentials, type Provider, type ProviderMessage, type TidingsOptions } from '@tidings/core';
import { UNKNOWN_OUTCOME_RETRY_MS } from '@tidings/core/internal';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { resendProvider } from '../src/email/resend.js';
import { oneSignalProvider } from '../src/push/one-signal.js';
import { twilioProvider } from '../src/sms/twilio.js';
import { fakeResend } from './services/email-resend.js';
import { oneSignalFake } from './services/push-one-signal.js';
import { fakeTwilio } from './services/sms-twilio.js';
import { local, started } from './started.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const HOUR = 3_600_000;

/**
 * An engine whose provider calls time out after 1 s (wall time: long enough for a loopback answer on
 * a loaded machine, and only held answers ever reach it), with one integration of
 * `provider` and a one-step workflow on its channel. The engine's clock is manual: only the test
 * moves it, so "an hour later" is exact.
 */
async function engine(provider: Provider, credentials: Credentials, options: Partial<TidingsOptions> = {}) {
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, providers: [provider], providerTimeoutMs: 1_000, ...options });
  await tidings.integrations.upsert({ providerId: provider.id, channel: provider.channel, credentials, active: true, primary: true });
  const template = provider.channel === 'sms' ? { type: 'sms' as const, content: 'Your code is 1234' } : { type: 'email' as const, subject: 'Welcome', content: 'Hello' };
  await tidings.workflows.upsert({ name: 'w', triggers: [{ identifier: 'w' }], steps: [{ template }] });
  const trigger = async () => {
    const result = await tidings.trigger({ name: 'w', to: { subscriberId: 'ada', phone: '+14155550100', email: 'ada@example.test' } });
    await tidings.runDue();
    return result.transactionId!;
  };
  const messages = (tx: string) => tidings.messages.byTransaction(tx);
  const reasons = async (tx: string) => (await tidings.explain(tx)).flatMap((record) => record.entries.map((e) => `${e.decision}: ${e.reason}`));
  return { tidings, clock, trigger, messages, reasons };
}

// Issue 40, item 6: a provider that answered 201 after 12 s (the timeout is 10 s) got the same SMS five
// times in 75 s, and the message was stored as `error`.
describe('a send that timed out may have been sent', () => {
  describe('Twilio (its Messages API takes no idempotency key)', () => {
    const account = { sid: `AC${'1'.repeat(32)}`, token: 'auth-token' };
    const credentials = { accountSid: account.sid, token: account.token, from: '+15005550006' };

    it('a 201 held past the timeout: one request, cancelled; the message is sent with its outcome unknown, and sent again once, an hour later', async () => {
      const twilio = await started(fakeTwilio(account));
      const release = twilio.holdAnswers();
      const { tidings, clock, trigger, messages, reasons } = await engine(twilioProvider(local(twilio.url)), credentials);
      const tx = await trigger();
      // Twilio took the message; its answer had not come when the engine stopped waiting.
      expect(twilio.messages).toHaveLength(1);
      expect(twilio.received).toHaveLength(1);
      // The engine's request was cancelled: the service sees its client go before it answers.
      await expect.poll(() => twilio.waiting(), { timeout: 5_000 }).toBe(0);
      release();
      expect(await messages(tx)).toMatchObject([{ status: 'sent', outcome: 'unknown', phone: '+14155550100', providerId: 'twilio' }]);
      expect((await messages(tx))[0]!.providerMessageId).toBeUndefined();
      const held = await reasons(tx);
      expect(held.at(-1)).toMatch(/^held: outcome unknown: the provider did not answer within 1000 ms; "twilio" takes no idempotency key, so it may have sent the message; it is sent again at 2026-06-01T13:00:00\.000Z$/);

      // However often the loop runs in that hour, nothing more is sent, and the message is never `error`.
      for (const ms of [1_000, 2_000, 4_000, 60_000, HOUR / 2, HOUR - 1]) {
        clock.set(new Date(Date.parse('2026-06-01T12:00:00.000Z') + ms));
        await tidings.runDue();
        expect(twilio.received).toHaveLength(1);
        expect((await messages(tx)).map((m) => m.status)).toEqual(['sent']);
      }
      // The long back-off is over: one more send, whose answer takes the unknown message's place.
      clock.set(new Date(Date.parse('2026-06-01T12:00:00.000Z') + UNKNOWN_OUTCOME_RETRY_MS));
      await tidings.runDue();
      expect(twilio.received).toHaveLength(2);
      const [message] = await messages(tx);
      expect(message).toMatchObject({ status: 'sent', providerMessageId: twilio.messages[1]!.sid, phone: '+14155550100' });
      expect(message!.outcome).toBeUndefined();
      // And nothing after it.
      clock.advance(7 * 24 * HOUR);
      await tidings.runDue();
      expect(twilio.received).toHaveLength(2);
    });

    it('the send an hour later times out too: it is the last; the message stays sent with its outcome unknown', async () => {
      const twilio = await started(fakeTwilio(account));
      const release = twilio.holdAnswers();
      const { tidings, clock, trigger, messages, reasons } = await engine(twilioProvider(local(twilio.url)), credentials);
      const tx = await trigger();
      expect(twilio.received).toHaveLength(1);
      clock.advance(UNKNOWN_OUTCOME_RETRY_MS);
      await tidings.runDue();
      expect(twilio.received).toHaveLength(2);
      await expect.poll(() => twilio.waiting(), { timeout: 5_000 }).toBe(0);
      for (let day = 0; day < 3; day++) {
        clock.advance(24 * HOUR);
        await tidings.runDue();
      }
      release();
      expect(twilio.received).toHaveLength(2);
      expect(await messages(tx)).toMatchObject([{ status: 'sent', outcome: 'unknown' }]);
      expect((await reasons(tx)).at(-1)).toMatch(/^delivered: outcome unknown: .*its send before was not answered either; it is not sent again$/);
      // The walk is over: nothing waits to send it a third time.
      expect(await tidings.runDue()).toBe(0);
    });
  });

  describe('Resend (Idempotency-Key)', () => {
    const account = { apiKey: 're_key', verifiedDomains: ['tidings.test'] };
    const credentials = { apiKey: 're_key', from: 'noreply@tidings.test' };

    it('a 200 held past the timeout: the retry carries the same key, Resend sends nothing more, and the message is sent as its first id', async () => {
      const resend = await started(fakeResend(account));
      const release = resend.holdAnswers();
      const { tidings, clock, trigger, messages } = await engine(resendProvider(local(resend.url)), credentials);
      const tx = await trigger();
      expect(resend.calls).toHaveLength(1);
      expect(resend.accepted).toHaveLength(1);
      await expect.poll(() => resend.waiting(), { timeout: 5_000 }).toBe(0);
      release();
      // A retry is no error: nothing is stored until it is answered.
      expect(await messages(tx)).toEqual([]);
      clock.advance(1_000);
      await tidings.runDue();
      expect(resend.calls).toHaveLength(2);
      const [first, second] = resend.calls;
      expect(first!.headers['idempotency-key']).toMatch(UUID);
      expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
      expect(second!.body).toBe(first!.body);
      expect(resend.accepted).toHaveLength(1);
      const [message] = await messages(tx);
      expect(message).toMatchObject({ status: 'sent', providerMessageId: resend.accepted[0]!.id });
      expect(message!.outcome).toBeUndefined();
    });

    it('every attempt times out: the message is sent with its outcome unknown, not error; every request had the one key', async () => {
      const resend = await started(fakeResend(account));
      const release = resend.holdAnswers();
      const { tidings, clock, trigger, messages, reasons } = await engine(resendProvider(local(resend.url)), credentials, { maxAttempts: 3 });
      const tx = await trigger();
      for (let i = 0; i < 5; i++) {
        clock.advance(60_000);
        await tidings.runDue();
      }
      release();
      expect(resend.calls).toHaveLength(3);
      expect(new Set(resend.calls.map((c) => c.headers['idempotency-key'])).size).toBe(1);
      expect(resend.accepted).toHaveLength(1);
      expect(await messages(tx)).toMatchObject([{ status: 'sent', outcome: 'unknown', providerId: 'resend' }]);
      expect((await reasons(tx)).at(-1)).toMatch(/outcome unknown: the provider did not answer within 1000 ms, and no attempt is left \(each asked with the same idempotency key\)$/);
    });

    it('a message that failed for good and is retried with tidings.retry is sent with a key of its own', async () => {
      const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: [] }));
      const { tidings, trigger, messages } = await engine(resendProvider(local(resend.url)), credentials);
      const tx = await trigger();
      expect(await messages(tx)).toMatchObject([{ status: 'error' }]);
      resend.accepted.length = 0;
      const verified = await started(fakeResend(account));
      await tidings.integrations.upsert({ providerId: 'resend', channel: 'email', credentials: { ...credentials, baseUrl: verified.url }, active: true, primary: true });
      await tidings.retry(tx, 'ada');
      await tidings.runDue();
      expect(verified.accepted).toHaveLength(1);
      expect(verified.calls[0]!.headers['idempotency-key']).toMatch(UUID);
      expect(verified.calls[0]!.headers['idempotency-key']).not.toBe(resend.calls[0]!.headers['idempotency-key']);
      expect(await messages(tx)).toMatchObject([{ status: 'sent', providerMessageId: verified.accepted[0]!.id }]);
    });
  });

  it('OneSignal: the send carries the key as idempotency_key; the same key twice is one notification', async () => {
    const app = { appId: 'app-1', apiKey: 'rest-api-key' };
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: ['player-1'] }));
    const provider = oneSignalProvider(local(oneSignal.url));
    expect(provider.idempotent).toBe(true);
    const message: ProviderMessage = { messageId: 'm-1', transactionId: 't-1', channel: 'push', to: { subscriberId: 'ada', deviceTokens: ['player-1'] }, content: 'Hello', payload: {}, overrides: {} };
    const idempotencyKey = '2f1e5a58-3a8e-5d6c-9b1a-0c4d2e6f8a10';
    const first = await provider.send(message, { applicationId: app.appId, apiKey: app.apiKey }, { idempotencyKey });
    const again = await provider.send(message, { applicationId: app.appId, apiKey: app.apiKey }, { idempotencyKey });
    expect(oneSignal.calls.map((c) => c.json.idempotency_key)).toEqual([idempotencyKey, idempotencyKey]);
    expect(again.id).toBe(first.id);
    expect(oneSignal.notifications).toHaveLength(1);
  });
});
