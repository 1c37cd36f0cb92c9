/**
 * Failover between a channel's integrations, against local servers that play Twilio and Vonage: a
 * retryable failure goes on to the next integration at once, both failing end as `error` with both
 * attempts in `explain`, a circuit that opened passes the integration over until it rests, and an
 * integration the trigger names is used alone.
 */
import { createTidings, type TidingsOptions } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { afterEach, expect, it } from 'vitest';
import { twilioProvider, vonageProvider } from '../src/index.js';
import { fakeTwilio, twilioError } from './services/sms-twilio.js';
import { fakeVonage, vonageThrottled } from './services/sms-vonage.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const local = { network: { allow: ['127.0.0.1'] } };
const TWILIO = { sid: `AC${'1'.repeat(32)}`, token: 'twilio-token' };
const VONAGE = { apiKey: 'vonage-key', apiSecret: 'vonage-secret' };

async function setup(options: Partial<TidingsOptions> = {}) {
  const twilio = await fakeTwilio(TWILIO);
  const vonage = await fakeVonage(VONAGE);
  closers.push(twilio.close, vonage.close);
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, providers: [twilioProvider({ baseUrl: twilio.url, ...local }), vonageProvider({ baseUrl: vonage.url, ...local })], ...options });
  await tidings.integrations.upsert({ identifier: 'twilio-main', providerId: 'twilio', channel: 'sms', credentials: { accountSid: TWILIO.sid, token: TWILIO.token, from: '+15550001' }, primary: true });
  await tidings.integrations.upsert({ identifier: 'vonage-backup', providerId: 'nexmo', channel: 'sms', credentials: { apiKey: VONAGE.apiKey, secretKey: VONAGE.apiSecret, from: 'Acme' } });
  await tidings.workflows.upsert({ name: 'code', triggers: [{ identifier: 'code' }], steps: [{ template: { type: 'sms', content: 'Your code is {{ payload.code }}' } }] });
  const send = async (code: number, extra: object = {}) => {
    const { transactionId } = await tidings.trigger({ name: 'code', to: { subscriberId: 'ada', phone: '+15550100' }, payload: { code }, ...extra });
    await tidings.runDue();
    const [message] = await tidings.messages.byTransaction(transactionId!);
    const [entry] = (await tidings.explain(transactionId!)).flatMap((record) => record.entries);
    return { message: message!, entry: entry!, transactionId: transactionId! };
  };
  return { tidings, clock, twilio, vonage, send };
}

it('a retryable failure of the primary goes on to the next integration at once; explain lists both attempts', async () => {
  const { twilio, vonage, send } = await setup();
  twilio.replyNext(twilioError(503, 20500, 'Service unavailable'));
  const { message, entry } = await send(1);
  expect(message).toMatchObject({ status: 'sent', providerId: 'nexmo' });
  expect([twilio.received.length, vonage.messages.length]).toEqual([1, 1]);
  expect(entry).toMatchObject({ decision: 'delivered', integration: 'vonage-backup' });
  expect(entry.attempts).toMatchObject([
    { integration: 'twilio-main', outcome: 'failed', reason: expect.stringContaining('503') },
    { integration: 'vonage-backup', outcome: 'sent' },
  ]);
});

it('with every integration failing the step is retried, and after the last attempt the message is error with both attempts', async () => {
  const { twilio, vonage, clock, tidings, send } = await setup({ maxAttempts: 2 });
  for (let i = 0; i < 2; i++) {
    twilio.replyNext(twilioError(503, 20500, 'Service unavailable'));
    vonage.replyNext(vonageThrottled);
  }
  const first = await send(2);
  expect(first.entry).toMatchObject({ decision: 'failed', reason: expect.stringContaining('will retry') });
  clock.advance(1_000);
  await tidings.runDue();
  const [message] = await tidings.messages.byTransaction(first.transactionId);
  expect(message).toMatchObject({ status: 'error', providerId: 'twilio', errorId: '20500' });
  const last = (await tidings.explain(first.transactionId)).flatMap((record) => record.entries).at(-1)!;
  expect(last.attempts?.map((a) => [a.integration, a.outcome])).toEqual([
    ['twilio-main', 'failed'],
    ['vonage-backup', 'failed'],
  ]);
  expect([twilio.received.length, vonage.received.length]).toEqual([2, 2]);
});

it('a circuit opened by failures in a row passes the integration over until it rests, then tries it again', async () => {
  const { twilio, vonage, clock, send } = await setup({ circuitBreaker: { failures: 2, openMs: 60_000 } });
  for (let i = 0; i < 2; i++) twilio.replyNext(twilioError(500, 20500, 'Internal error'));
  expect((await send(3)).message.providerId).toBe('nexmo');
  expect((await send(4)).message.providerId).toBe('nexmo');
  // Open: Twilio is not called at all.
  const passedOver = await send(5);
  expect(passedOver.message).toMatchObject({ status: 'sent', providerId: 'nexmo' });
  expect(twilio.received).toHaveLength(2);
  expect(passedOver.entry.attempts?.[0]).toMatchObject({ integration: 'twilio-main', outcome: 'passed_over', reason: expect.stringContaining('circuit is open') });
  // Rested: tried again, and a success closes it.
  clock.advance(60_000);
  expect((await send(6)).message).toMatchObject({ status: 'sent', providerId: 'twilio' });
  expect([twilio.messages.length, vonage.messages.length]).toEqual([1, 3]);
});

it('an integration the trigger names is used alone: its failure is retried, never failed over', async () => {
  const { twilio, vonage, send } = await setup();
  twilio.replyNext(twilioError(503, 20500, 'Service unavailable'));
  const { entry } = await send(7, { overrides: { sms: { integrationIdentifier: 'twilio-main' } } });
  expect(entry).toMatchObject({ decision: 'failed', integration: 'twilio-main' });
  expect(vonage.received).toHaveLength(0);
});

it('a final failure (an invalid number) ends the step without trying the next integration', async () => {
  const { vonage, tidings } = await setup();
  const { transactionId } = await tidings.trigger({ name: 'code', to: { subscriberId: 'bob', phone: '555' }, payload: { code: 8 } });
  await tidings.runDue();
  const [message] = await tidings.messages.byTransaction(transactionId!);
  expect(message).toMatchObject({ status: 'error', providerId: 'twilio', errorId: '21211' });
  expect(vonage.received).toHaveLength(0);
});
