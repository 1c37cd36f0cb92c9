import { createTidings, type Credentials, type Provider, type TidingsOptions } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { snsProvider } from '../src/sms/sns.js';
import { twilioProvider } from '../src/sms/twilio.js';
import { vonageProvider } from '../src/sms/vonage.js';
import { fakeSns, snsError } from './services/sms-sns.js';
import { fakeTwilio, twilioError } from './services/sms-twilio.js';
import { fakeVonage, vonageThrottled } from './services/sms-vonage.js';
import { started } from './started.js';

/** The fakes listen on loopback, which providers refuse unless allowed. */
const local = { network: { allow: ['127.0.0.1'] } };

/** An engine with one SMS integration and a one-step SMS workflow `code`. */
async function engine(provider: Provider, credentials: Credentials, options: Partial<TidingsOptions> = {}) {
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, providers: [provider], ...options });
  await tidings.integrations.upsert({ providerId: provider.id, channel: 'sms', credentials, active: true, primary: true });
  await tidings.workflows.upsert({ name: 'code', triggers: [{ identifier: 'code' }], steps: [{ template: { type: 'sms', content: '{{ payload.text }}' } }] });
  /** Triggers `code` for a subscriber with `phone` and runs what is due; resolves the transaction id. */
  const sms = async (phone: string | undefined, text = 'Your code is 1234', overrides: Record<string, unknown> = {}) => {
    const result = await tidings.trigger({ name: 'code', to: { subscriberId: 'ada', ...(phone !== undefined && { phone }) }, payload: { text }, overrides: overrides as never });
    await tidings.runDue();
    return result.transactionId!;
  };
  const messages = (tx: string) => tidings.messages.byTransaction(tx);
  const sentAs = async (tx: string) => (await tidings.explain(tx))[0]!.entries.at(-1)!.reason;
  return { tidings, clock, sms, messages, sentAs };
}

describe('twilio', () => {
  const account = { sid: `AC${'1'.repeat(32)}`, token: 'auth-token' };
  const credentials = { accountSid: account.sid, token: account.token, from: '+15005550006' };

  it('posts To, From and Body with Basic auth to the account’s Messages.json; the message is sent as Twilio’s sid', async () => {
    const twilio = await started(fakeTwilio(account));
    const { sms, messages, sentAs } = await engine(twilioProvider({ baseUrl: twilio.url, ...local }), credentials);
    const tx = await sms('+14155550100');
    const [request] = twilio.received;
    expect(request).toMatchObject({ method: 'POST', path: `/2010-04-01/Accounts/${account.sid}/Messages.json` });
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${account.sid}:${account.token}`).toString('base64')}`);
    expect(Object.fromEntries(request!.form)).toEqual({ To: '+14155550100', From: '+15005550006', Body: 'Your code is 1234' });
    expect(await messages(tx)).toMatchObject([{ status: 'sent', providerId: 'twilio', phone: '+14155550100' }]);
    expect(await sentAs(tx)).toContain(`as ${twilio.messages[0]!.sid}`);
  });

  it('a Messaging Service SID as from is sent as MessagingServiceSid; overrides.twilio add fields (camelCase as Novu passes them)', async () => {
    const twilio = await started(fakeTwilio(account));
    const service = `MG${'a'.repeat(32)}`;
    const { sms, messages } = await engine(twilioProvider({ baseUrl: twilio.url, ...local }), { ...credentials, from: service });
    const tx = await sms('+14155550100', 'hi', { twilio: { statusCallback: 'https://app.test/status' } });
    expect(twilio.messages).toMatchObject([{ messagingServiceSid: service, from: null, statusCallback: 'https://app.test/status' }]);
    expect((await messages(tx))[0]!.status).toBe('sent');
  });

  it.each([
    ['an invalid number', '+1 (415) not-a-number', credentials, '21211'],
    ['a wrong auth token', '+14155550100', { ...credentials, token: 'wrong' }, '20003'],
  ])('%s is a final error whose errorId is Twilio’s code', async (_case, phone, creds, code) => {
    const twilio = await started(fakeTwilio(account));
    const { sms, messages, tidings } = await engine(twilioProvider({ baseUrl: twilio.url, ...local }), creds);
    const tx = await sms(phone);
    expect(await messages(tx)).toMatchObject([{ status: 'error', errorId: code, errorText: expect.stringMatching(/^twilio answered 40\d/) }]);
    expect(await tidings.runDue()).toBe(0);
    expect(twilio.received).toHaveLength(1);
  });

  it('a 429 with Retry-After: 120 is not tried again before 120 s have passed', async () => {
    const twilio = await started(fakeTwilio(account));
    twilio.replyNext(twilioError(429, 20429, 'Too Many Requests', { 'retry-after': '120' }));
    const { sms, messages, clock, tidings } = await engine(twilioProvider({ baseUrl: twilio.url, ...local }), credentials);
    const tx = await sms('+14155550100');
    expect(twilio.received).toHaveLength(1);
    expect(await messages(tx)).toEqual([]);
    clock.advance(60_000);
    await tidings.runDue();
    expect(twilio.received).toHaveLength(1);
    clock.advance(61_000);
    await tidings.runDue();
    expect(twilio.received).toHaveLength(2);
    expect(await messages(tx)).toMatchObject([{ status: 'sent' }]);
  });

  it('a 503 is retried on the next run after the backoff', async () => {
    const twilio = await started(fakeTwilio(account));
    twilio.replyNext(twilioError(503, 20503, 'Service Unavailable'));
    const { sms, messages, clock, tidings } = await engine(twilioProvider({ baseUrl: twilio.url, ...local }), credentials);
    const tx = await sms('+14155550100');
    expect(await messages(tx)).toEqual([]);
    clock.advance(1_000);
    await tidings.runDue();
    expect(twilio.messages).toHaveLength(1);
    expect(await messages(tx)).toMatchObject([{ status: 'sent' }]);
  });

  it('an integration without token or from fails at once with missing_credentials, naming them; nothing is posted', async () => {
    const twilio = await started(fakeTwilio(account));
    const { sms, messages } = await engine(twilioProvider({ baseUrl: twilio.url, ...local }), { accountSid: account.sid });
    const tx = await sms('+14155550100');
    expect(await messages(tx)).toMatchObject([{ status: 'error', errorId: 'missing_credentials', errorText: 'twilio: the integration has no token credential' }]);
    expect(twilio.received).toHaveLength(0);
  });

  it('a recipient without a phone: the engine does not call the provider (warning); the provider itself refuses with missing_phone', async () => {
    const twilio = await started(fakeTwilio(account));
    const provider = twilioProvider({ baseUrl: twilio.url, ...local });
    const { sms, messages } = await engine(provider, credentials);
    const tx = await sms(undefined);
    expect(await messages(tx)).toMatchObject([{ status: 'warning', errorText: expect.stringContaining('the subscriber has no phone number') }]);
    const message = { messageId: 'm1', transactionId: 't1', channel: 'sms' as const, to: { subscriberId: 'ada' }, content: 'x', payload: {}, overrides: {} };
    await expect(provider.send(message, credentials)).rejects.toMatchObject({ retryable: false, options: { code: 'missing_phone' }, message: 'twilio: the recipient has no phone number' });
    expect(twilio.received).toHaveLength(0);
  });
});

describe('vonage (providerId nexmo)', () => {
  const account = { apiKey: 'a1b2c3d4', apiSecret: 'vonage-secret' };
  const credentials = { apiKey: account.apiKey, secretKey: account.apiSecret, from: 'Tidings' };

  it('posts api_key, api_secret, from, to (E.164 without +) and text as a form to /sms/json; sent as its message-id', async () => {
    const vonage = await started(fakeVonage(account));
    const { sms, messages, sentAs } = await engine(vonageProvider({ baseUrl: vonage.url, ...local }), credentials);
    const tx = await sms('+44 7700 900000');
    const [request] = vonage.received;
    expect(request).toMatchObject({ method: 'POST', path: '/sms/json' });
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(request!.form)).toEqual({ api_key: 'a1b2c3d4', api_secret: 'vonage-secret', from: 'Tidings', to: '447700900000', text: 'Your code is 1234' });
    expect(await messages(tx)).toMatchObject([{ status: 'sent', providerId: 'nexmo' }]);
    expect(await sentAs(tx)).toContain(`as ${vonage.messages[0]!.messageId}`);
  });

  it('text outside the GSM alphabet is sent as type=unicode', async () => {
    const vonage = await started(fakeVonage(account));
    const { sms } = await engine(vonageProvider({ baseUrl: vonage.url, ...local }), credentials);
    await sms('+447700900000', 'Ваш код 1234 ✓');
    await sms('+447700900000', 'Prix: 5€ [ok]');
    expect(vonage.messages.map((m) => [m.text, m.type])).toEqual([
      ['Ваш код 1234 ✓', 'unicode'],
      ['Prix: 5€ [ok]', null],
    ]);
  });

  it.each([
    ['bad credentials (status 4)', '+447700900000', { ...credentials, secretKey: 'wrong' }, '4', 'nexmo refused the message: status 4 (invalid credentials)'],
    ['an invalid number (status 3)', '12', credentials, '3', 'nexmo refused the message: status 3 (invalid parameters)'],
  ])('%s, though answered with HTTP 200, is a final error whose errorId is Vonage’s status', async (_case, phone, creds, status, text) => {
    const vonage = await started(fakeVonage(account));
    const { sms, messages, tidings } = await engine(vonageProvider({ baseUrl: vonage.url, ...local }), creds);
    const tx = await sms(phone);
    expect(await messages(tx)).toMatchObject([{ status: 'error', errorId: status, errorText: text }]);
    expect(await tidings.runDue()).toBe(0);
  });

  it('status 1 (throttled) in a 200 answer is retried after the backoff', async () => {
    const vonage = await started(fakeVonage(account));
    vonage.replyNext(vonageThrottled);
    const { sms, messages, clock, tidings } = await engine(vonageProvider({ baseUrl: vonage.url, ...local }), credentials);
    const tx = await sms('+447700900000');
    expect(await messages(tx)).toEqual([]);
    expect((await tidings.explain(tx))[0]!.entries[0]).toMatchObject({ decision: 'failed', reason: expect.stringContaining('status 1 (throttled); will retry') });
    clock.advance(1_000);
    await tidings.runDue();
    expect(vonage.received).toHaveLength(2);
    expect(await messages(tx)).toMatchObject([{ status: 'sent' }]);
  });

  it('an integration without from fails with missing_credentials', async () => {
    const vonage = await started(fakeVonage(account));
    const { sms, messages } = await engine(vonageProvider({ baseUrl: vonage.url, ...local }), { apiKey: 'k', secretKey: 's' });
    expect(await messages(await sms('+447700900000'))).toMatchObject([{ status: 'error', errorId: 'missing_credentials', errorText: 'nexmo: the integration has no from credential' }]);
    expect(vonage.received).toHaveLength(0);
  });
});

describe('amazon sns', () => {
  const account = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'eu-west-1' };
  const credentials = { apiKey: account.accessKeyId, secretKey: account.secretAccessKey, region: account.region };

  it('publishes Action=Publish with PhoneNumber and Message, SigV4-signed for sns in the region; sent as the MessageId', async () => {
    const sns = await started(fakeSns(account));
    const { sms, messages, sentAs } = await engine(snsProvider({ baseUrl: sns.url, ...local }), credentials);
    const tx = await sms('+14155550100');
    const [request] = sns.received;
    expect(request).toMatchObject({ method: 'POST', path: '/' });
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/sns\/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(Object.fromEntries(request!.form)).toEqual({ Action: 'Publish', PhoneNumber: '+14155550100', Message: 'Your code is 1234', Version: '2010-03-31' });
    // The fake recomputed the signature: a success means it matched.
    expect(sns.messages).toHaveLength(1);
    expect(await messages(tx)).toMatchObject([{ status: 'sent', providerId: 'sns' }]);
    expect(await sentAs(tx)).toContain(`as ${sns.messages[0]!.messageId}`);
  });

  it('overrides.sns add Publish parameters (SMS attributes), signed with the rest', async () => {
    const sns = await started(fakeSns(account));
    const { sms } = await engine(snsProvider({ baseUrl: sns.url, ...local }), credentials);
    const attributes = { 'MessageAttributes.entry.1.Name': 'AWS.SNS.SMS.SMSType', 'MessageAttributes.entry.1.Value.DataType': 'String', 'MessageAttributes.entry.1.Value.StringValue': 'Transactional', action: 'Subscribe' };
    await sms('+14155550100', 'hi', { sns: attributes });
    expect(sns.messages[0]!.params).toMatchObject({ Action: 'Publish', 'MessageAttributes.entry.1.Value.StringValue': 'Transactional' });
  });

  it.each([
    ['an invalid number', '+0123', credentials, 'InvalidParameter', 400],
    ['a wrong secret key', '+14155550100', { ...credentials, secretKey: 'not-the-secret' }, 'SignatureDoesNotMatch', 403],
    ['an unknown access key', '+14155550100', { ...credentials, apiKey: 'AKIAUNKNOWN' }, 'InvalidClientTokenId', 403],
    ['the wrong region', '+14155550100', { ...credentials, region: 'us-east-1' }, 'SignatureDoesNotMatch', 403],
  ])('%s is a final error whose errorId is the AWS error code', async (_case, phone, creds, code, status) => {
    const sns = await started(fakeSns(account));
    const { sms, messages, tidings } = await engine(snsProvider({ baseUrl: sns.url, ...local }), creds);
    const tx = await sms(phone);
    expect(await messages(tx)).toMatchObject([{ status: 'error', errorId: code, errorText: `sns answered ${status} (${code})` }]);
    expect(await tidings.runDue()).toBe(0);
    expect(sns.messages).toHaveLength(0);
  });

  it('Throttling (answered as HTTP 400) is retried after the backoff', async () => {
    const sns = await started(fakeSns(account));
    sns.replyNext(snsError(400, 'Throttling', 'Rate exceeded'));
    const { sms, messages, clock, tidings } = await engine(snsProvider({ baseUrl: sns.url, ...local }), credentials);
    const tx = await sms('+14155550100');
    expect(await messages(tx)).toEqual([]);
    clock.advance(1_000);
    await tidings.runDue();
    expect(sns.messages).toHaveLength(1);
    expect(await messages(tx)).toMatchObject([{ status: 'sent' }]);
  });

  it('the integration’s baseUrl wins over the provider’s', async () => {
    const sns = await started(fakeSns(account));
    const other = await started(fakeSns(account));
    const { sms, messages } = await engine(snsProvider({ baseUrl: other.url, ...local }), { ...credentials, baseUrl: sns.url });
    const tx = await sms('+14155550100');
    expect(other.received).toHaveLength(0);
    expect(sns.messages).toHaveLength(1);
    expect(await messages(tx)).toMatchObject([{ status: 'sent' }]);
  });

  it('a region that is not an AWS region’s shape is refused before anything is sent', async () => {
    const sns = await started(fakeSns(account));
    const { sms, messages } = await engine(snsProvider({ baseUrl: sns.url, ...local }), { ...credentials, region: 'evil.example/x' });
    expect(await messages(await sms('+14155550100'))).toMatchObject([{ status: 'error', errorId: 'invalid_region' }]);
    expect(sns.received).toHaveLength(0);
  });
});
