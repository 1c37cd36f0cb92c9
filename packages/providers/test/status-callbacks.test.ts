import { createHash, createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { CallbackRefused, createTidings, type Credentials, type Provider, type ProviderCallback, type ProviderMessage } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { mailgunProvider } from '../src/email/mailgun.js';
import { postmarkProvider } from '../src/email/postmark.js';
import { resendProvider } from '../src/email/resend.js';
import { sendgridProvider } from '../src/email/sendgrid.js';
import { sesProvider } from '../src/email/ses.js';
import { serviceProviders } from '../src/service-providers.js';
import { twilioProvider } from '../src/sms/twilio.js';
import { vonageProvider } from '../src/sms/vonage.js';
import { newStandardWebhookSecret, signStandardWebhook, standardWebhookHeaders, verifyStandardWebhook } from '../src/standard-webhooks.js';
import { fakeService, type ServiceReply } from './services/email-fake-server.js';
import { fakeMailgun } from './services/email-mailgun.js';
import { fakeSendgrid } from './services/email-sendgrid.js';
import { selfSignedCertificate } from './services/self-signed-certificate.js';
import { started } from './started.js';

/** The fake services listen on loopback, which providers refuse unless allowed. */
const at = (url: string) => ({ baseUrl: url, network: { allow: ['127.0.0.1'] } });

const callback = (body: string, headers: Record<string, string> = {}, url = 'https://tidings.example/v1/inbound-webhooks/delivery-providers/env/integration', method = 'POST'): ProviderCallback => ({
  method,
  url,
  headers,
  body,
});

const integration = (signingKey?: string, credentials: Credentials = {}) => ({ credentials, ...(signingKey !== undefined && { signingKey }) });
const nowSeconds = () => Math.floor(Date.now() / 1000);
const TEN_MINUTES = 600;

/** What `send` gets: one rendered email to Ada. */
const mail = (email = 'ada@example.test'): ProviderMessage => ({
  messageId: 'msg-1',
  transactionId: 'tx-1',
  channel: 'email',
  to: { subscriberId: 'ada', email },
  subject: 'Welcome',
  content: 'Hello Ada',
  payload: {},
  overrides: {},
});

/** Reads with the provider's `readStatus` (which every hosted email and SMS provider has): the events it reports. */
const read = async (provider: Provider, call: ProviderCallback, with_: ReturnType<typeof integration>) => {
  const answer = await provider.readStatus!(call, with_);
  return Array.isArray(answer) ? answer : answer.events;
};

async function expectRefused(promise: Promise<unknown>, message: RegExp) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CallbackRefused);
  expect((error as Error).message).toMatch(message);
}

describe('readStatus on the hosted-service providers', () => {
  it('every hosted email and SMS provider but SNS SMS reads status callbacks', () => {
    const reading = serviceProviders()
      .filter((p) => p.channel === 'email' || p.channel === 'sms')
      .filter((p) => typeof p.readStatus === 'function')
      .map((p) => p.id);
    expect(reading.sort()).toEqual(['mailgun', 'nexmo', 'postmark', 'resend', 'sendgrid', 'ses', 'twilio']);
  });
});

describe('SendGrid Signed Event Webhook', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  // What SendGrid shows as the verification key: base64 of the SPKI DER public key.
  const verificationKey = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const signed = (body: string, timestamp = String(nowSeconds()), key: KeyObject = privateKey) =>
    callback(body, {
      'content-type': 'application/json',
      'x-twilio-email-event-webhook-signature': sign('sha256', Buffer.from(timestamp + body), key).toString('base64'),
      'x-twilio-email-event-webhook-timestamp': timestamp,
    });
  const when = 1780315200; // 2026-06-01T12:00:00Z

  it('reads the tracked events of a signed batch, matched to the X-Message-Id send returned', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['noreply@tidings.test'] }));
    const provider = sendgridProvider(at(sendgrid.url));
    const { id } = await provider.send(mail(), { apiKey: 'SG.key', from: 'noreply@tidings.test' });
    const event = (fields: Record<string, unknown>) => ({ email: 'ada@example.test', timestamp: when, sg_message_id: `${id}.filterdrecv-5645d9c87f-6r2ch-1-5B9F5B86-27.0`, ...fields });
    const body = JSON.stringify([
      event({ event: 'processed', sg_event_id: 'ev-processed' }),
      event({ event: 'deferred', sg_event_id: 'ev-deferred', response: '400 try again later', attempt: '1' }),
      event({ event: 'delivered', sg_event_id: 'ev-delivered', response: '250 OK' }),
      event({ event: 'open', sg_event_id: 'ev-open', timestamp: when + 60, useragent: 'Mozilla/5.0', ip: '192.0.2.1' }),
      event({ event: 'click', sg_event_id: 'ev-click', timestamp: when + 120, url: 'https://tidings.example/welcome' }),
      event({ event: 'spamreport', sg_event_id: 'ev-spam', timestamp: when + 180 }),
      event({ event: 'unsubscribe', sg_event_id: 'ev-unsub' }),
    ]);
    const events = await read(provider, signed(body), integration(verificationKey));
    const common = { providerMessageId: id, address: 'ada@example.test' };
    expect(events).toEqual([
      { ...common, state: 'delivered', at: '2026-06-01T12:00:00.000Z', eventId: 'ev-delivered' },
      { ...common, state: 'opened', at: '2026-06-01T12:01:00.000Z', eventId: 'ev-open' },
      { ...common, state: 'clicked', at: '2026-06-01T12:02:00.000Z', eventId: 'ev-click' },
      { ...common, state: 'complained', at: '2026-06-01T12:03:00.000Z', eventId: 'ev-spam' },
    ]);
  });

  it('reads bounces as hard, blocks as soft, drops as failures', async () => {
    const body = JSON.stringify([
      { email: 'gone@example.test', timestamp: when, event: 'bounce', type: 'bounce', reason: '550 5.1.1 The email account does not exist', status: '5.1.1', sg_event_id: 'b1', sg_message_id: 'abc.filter.0' },
      { email: 'busy@example.test', timestamp: when, event: 'bounce', type: 'blocked', reason: '421 too many connections', status: '4.0.0', sg_event_id: 'b2', sg_message_id: 'def.filter.0' },
      { email: 'gone@example.test', timestamp: when, event: 'dropped', reason: 'Bounced Address', sg_event_id: 'd1', sg_message_id: 'ghi.filter.0' },
      { email: 'x@example.test', timestamp: when, event: 'dropped', reason: 'Invalid SMTPAPI header', sg_event_id: 'd2', sg_message_id: 'jkl.filter.0' },
    ]);
    const events = await read(sendgridProvider(), signed(body), integration(verificationKey));
    expect(events).toEqual([
      { providerMessageId: 'abc', state: 'bounced', bounce: 'hard', reason: '550 5.1.1 The email account does not exist', at: '2026-06-01T12:00:00.000Z', eventId: 'b1', address: 'gone@example.test' },
      { providerMessageId: 'def', state: 'bounced', bounce: 'soft', reason: '421 too many connections', at: '2026-06-01T12:00:00.000Z', eventId: 'b2', address: 'busy@example.test' },
      { providerMessageId: 'ghi', state: 'failed', permanent: true, reason: 'Bounced Address', at: '2026-06-01T12:00:00.000Z', eventId: 'd1', address: 'gone@example.test' },
      { providerMessageId: 'jkl', state: 'failed', reason: 'Invalid SMTPAPI header', at: '2026-06-01T12:00:00.000Z', eventId: 'd2', address: 'x@example.test' },
    ]);
  });

  it('returns no events for a batch of events Tidings does not track', async () => {
    const body = JSON.stringify([{ email: 'ada@example.test', timestamp: when, event: 'deferred', sg_event_id: 'x', sg_message_id: 'abc.f.0' }, { event: 'group_unsubscribe', sg_message_id: 'abc.f.0' }]);
    expect(await read(sendgridProvider(), signed(body), integration(verificationKey))).toEqual([]);
  });

  it('refuses a callback unsigned, signed by another key, altered, replayed, or without a verification key', async () => {
    const body = JSON.stringify([{ email: 'ada@example.test', timestamp: when, event: 'delivered', sg_event_id: 'e', sg_message_id: 'abc.f.0' }]);
    const provider = sendgridProvider();
    const key = integration(verificationKey);
    await expectRefused(read(provider, callback(body), key), /not signed/);
    await expectRefused(read(provider, signed(body, undefined, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey), key), /does not match/);
    const altered = signed(body);
    await expectRefused(read(provider, { ...altered, body: altered.body.replace('delivered', 'bounce') }, key), /does not match/);
    await expectRefused(read(provider, signed(body, String(nowSeconds() - TEN_MINUTES)), key), /away from now/);
    await expectRefused(read(provider, signed(body), integration()), /no inboundWebhookSigningKey/);
    await expectRefused(read(provider, signed(body), integration('not a key')), /verification key/);
    await expectRefused(read(provider, signed('{"not":"an array"}'), key), /not an array/);
    await expectRefused(read(provider, signed('not json'), key), /not JSON/);
  });
});

describe('Standard Webhooks (Svix) signatures', () => {
  it('signs as Svix does and verifies webhook-* and svix-* headers alike', () => {
    const secret = newStandardWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const message = { id: 'msg_2a', timestamp: nowSeconds(), body: '{"type":"test"}' };
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${message.id}.${message.timestamp}.${message.body}`).digest('base64');
    expect(signStandardWebhook(secret, message)).toBe(`v1,${expected}`);
    const headers = standardWebhookHeaders(secret, message);
    expect(verifyStandardWebhook(secret, { ...headers }, message.body)).toEqual({ id: 'msg_2a', timestamp: message.timestamp });
    const svix = { 'svix-id': headers['webhook-id'], 'svix-timestamp': headers['webhook-timestamp'], 'svix-signature': headers['webhook-signature'] };
    expect(verifyStandardWebhook(secret, svix, message.body).id).toBe('msg_2a');
    expect(() => verifyStandardWebhook(newStandardWebhookSecret(), svix, message.body)).toThrow(CallbackRefused);
    expect(() => verifyStandardWebhook(secret, svix, message.body, { now: Date.now() + TEN_MINUTES * 1000 })).toThrow(/away from now/);
  });
});

describe('Resend (Svix-signed webhooks)', () => {
  const secret = `whsec_${Buffer.from('resend-endpoint-signing-secret-bytes').toString('base64')}`;
  let counter = 0;
  /** A webhook as Svix posts it: svix-id, svix-timestamp, svix-signature `v1,<base64 HMAC-SHA256 of id.timestamp.body>`. */
  const signed = (event: unknown, options: { timestamp?: number; secret?: string; id?: string } = {}) => {
    const body = JSON.stringify(event);
    const id = options.id ?? `msg_${++counter}`;
    const timestamp = options.timestamp ?? nowSeconds();
    const key = Buffer.from((options.secret ?? secret).replace(/^whsec_/, ''), 'base64');
    const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    return callback(body, { 'content-type': 'application/json', 'svix-id': id, 'svix-timestamp': String(timestamp), 'svix-signature': `v1,${signature}` });
  };
  const emailEvent = (type: string, data: Record<string, unknown> = {}) => ({
    type,
    created_at: '2026-06-01T12:00:05.000Z',
    data: { created_at: '2026-06-01T12:00:00.000Z', email_id: '4ef9a417-02e9-4d39-ad75-9611e0fcc33c', from: 'Tidings <noreply@tidings.test>', to: ['ada@example.test'], subject: 'Welcome', ...data },
  });
  const provider = resendProvider();
  const common = { providerMessageId: '4ef9a417-02e9-4d39-ad75-9611e0fcc33c', at: '2026-06-01T12:00:05.000Z', address: 'ada@example.test' };

  it('reads each tracked event, with svix-id as the event id', async () => {
    const cases: [unknown, Record<string, unknown>][] = [
      [emailEvent('email.delivered'), { state: 'delivered' }],
      [emailEvent('email.bounced', { bounce: { message: "The recipient's email address does not exist.", subType: 'General', type: 'Permanent' } }), { state: 'bounced', bounce: 'hard', reason: "The recipient's email address does not exist." }],
      [emailEvent('email.bounced', { bounce: { message: 'Mailbox full', subType: 'MailboxFull', type: 'Transient' } }), { state: 'bounced', bounce: 'soft', reason: 'Mailbox full' }],
      [emailEvent('email.bounced'), { state: 'bounced', bounce: 'hard' }],
      [emailEvent('email.complained'), { state: 'complained' }],
      [emailEvent('email.opened'), { state: 'opened' }],
      [emailEvent('email.clicked', { click: { link: 'https://tidings.example', timestamp: '2026-06-01T12:00:04.000Z' } }), { state: 'clicked' }],
      [emailEvent('email.failed', { failed: { reason: 'reached_daily_quota' } }), { state: 'failed', reason: 'reached_daily_quota' }],
      [emailEvent('email.suppressed', { suppressed: { message: 'on the suppression list', type: 'OnAccountSuppressionList' } }), { state: 'failed', permanent: true, reason: 'on the suppression list' }],
    ];
    for (const [event, expected] of cases) {
      const call = signed(event);
      expect(await read(provider, call, integration(secret))).toEqual([{ ...common, eventId: call.headers['svix-id'], ...expected }]);
    }
  });

  it('returns no events for events Tidings does not track', async () => {
    for (const type of ['email.sent', 'email.delivery_delayed', 'email.scheduled']) expect(await read(provider, signed(emailEvent(type)), integration(secret))).toEqual([]);
    expect(await read(provider, signed({ type: 'contact.created', created_at: '2026-06-01T12:00:00.000Z', data: { id: 'c1', email: 'ada@example.test' } }), integration(secret))).toEqual([]);
  });

  it('accepts any one of several signatures (a secret being rotated)', async () => {
    const call = signed(emailEvent('email.delivered'));
    const rotated = { ...call, headers: { ...call.headers, 'svix-signature': `v1,${Buffer.from('old-secret-signature').toString('base64')} ${call.headers['svix-signature']}` } };
    expect(await read(provider, rotated, integration(secret))).toHaveLength(1);
  });

  it('refuses a webhook unsigned, signed with another secret, altered, replayed, or without a secret', async () => {
    const event = emailEvent('email.delivered');
    await expectRefused(read(provider, callback(JSON.stringify(event)), integration(secret)), /not signed/);
    await expectRefused(read(provider, signed(event, { secret: `whsec_${Buffer.from('another').toString('base64')}` }), integration(secret)), /does not match/);
    const altered = signed(event);
    await expectRefused(read(provider, { ...altered, body: altered.body.replace('delivered', 'bounced') }, integration(secret)), /does not match/);
    await expectRefused(read(provider, signed(event, { timestamp: nowSeconds() - TEN_MINUTES }), integration(secret)), /away from now/);
    await expectRefused(read(provider, signed(event, { timestamp: nowSeconds() + TEN_MINUTES }), integration(secret)), /away from now/);
    await expectRefused(read(provider, signed(event), integration()), /no inboundWebhookSigningKey/);
  });
});

describe('Postmark (Basic auth in the webhook URL)', () => {
  const credentials = 'tidings:s3cret-webhook-password';
  const posted = (record: unknown, auth: string | null = credentials) =>
    callback(JSON.stringify(record), { 'content-type': 'application/json', ...(auth !== null && { authorization: `Basic ${Buffer.from(auth).toString('base64')}` }) });
  const provider = postmarkProvider();
  const messageId = '883953f4-6105-42a2-a16a-77a8eac79483';
  const bounce = (fields: Record<string, unknown>) => ({
    RecordType: 'Bounce',
    ID: 4323372036854775807,
    Type: 'HardBounce',
    TypeCode: 1,
    Name: 'Hard bounce',
    MessageID: messageId,
    ServerID: 23,
    MessageStream: 'outbound',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
    Email: 'ada@example.test',
    From: 'noreply@tidings.test',
    BouncedAt: '2026-06-01T12:00:00Z',
    Inactive: true,
    CanActivate: true,
    Subject: 'Welcome',
    ...fields,
  });

  it('reads deliveries, bounces, complaints, opens and clicks', async () => {
    const delivery = { RecordType: 'Delivery', ServerID: 23, MessageStream: 'outbound', MessageID: messageId, Recipient: 'ada@example.test', Tag: '', DeliveredAt: '2026-06-01T12:00:00Z', Details: 'Test delivery webhook details', Metadata: {} };
    const [delivered] = await read(provider, posted(delivery), integration(credentials));
    expect(delivered).toEqual({ providerMessageId: messageId, state: 'delivered', at: '2026-06-01T12:00:00.000Z', eventId: expect.stringMatching(/^[0-9a-f]{40}$/), address: 'ada@example.test' });
    // The same record twice has the same id.
    expect((await read(provider, posted(delivery), integration(credentials)))[0]!.eventId).toBe(delivered!.eventId);

    expect(await read(provider, posted(bounce({})), integration(credentials))).toEqual([
      {
        providerMessageId: messageId,
        state: 'bounced',
        bounce: 'hard',
        reason: 'HardBounce: smtp;550 5.1.1 The email account that you tried to reach does not exist.',
        at: '2026-06-01T12:00:00.000Z',
        eventId: expect.stringMatching(/^[0-9a-f]{40}$/),
        address: 'ada@example.test',
      },
    ]);
    const soft = await read(provider, posted(bounce({ ID: 42, Type: 'SoftBounce', Inactive: false, Details: 'mailbox full' })), integration(credentials));
    expect(soft).toMatchObject([{ state: 'bounced', bounce: 'soft', reason: 'SoftBounce: mailbox full' }]);
    const transient = await read(provider, posted(bounce({ ID: 43, Type: 'Transient', Inactive: false })), integration(credentials));
    expect(transient).toMatchObject([{ bounce: 'soft' }]);
    // Postmark deactivated the address: it takes no more mail, whatever the bounce type.
    const deactivated = await read(provider, posted(bounce({ ID: 44, Type: 'SoftBounce', Inactive: true })), integration(credentials));
    expect(deactivated).toMatchObject([{ bounce: 'hard' }]);

    const complaint = await read(provider, posted({ ...bounce({ ID: 45, Type: 'SpamComplaint', TypeCode: 512 }), RecordType: 'SpamComplaint' }), integration(credentials));
    expect(complaint).toEqual([{ providerMessageId: messageId, state: 'complained', at: '2026-06-01T12:00:00.000Z', eventId: expect.stringMatching(/^[0-9a-f]{40}$/), address: 'ada@example.test' }]);
    const ids = [delivered, ...soft, ...transient, ...deactivated, ...complaint].map((event) => event!.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    const open = await read(provider, posted({ RecordType: 'Open', MessageStream: 'outbound', FirstOpen: true, MessageID: messageId, Recipient: 'ada@example.test', ReceivedAt: '2026-06-01T12:05:00Z', Platform: 'WebMail' }), integration(credentials));
    expect(open).toMatchObject([{ state: 'opened', at: '2026-06-01T12:05:00.000Z' }]);
    const click = await read(provider, posted({ RecordType: 'Click', MessageStream: 'outbound', ClickLocation: 'HTML', OriginalLink: 'https://tidings.example', MessageID: messageId, Recipient: 'ada@example.test', ReceivedAt: '2026-06-01T12:06:00Z' }), integration(credentials));
    expect(click).toMatchObject([{ state: 'clicked', at: '2026-06-01T12:06:00.000Z' }]);
  });

  it('returns no events for records that are no delivery outcome', async () => {
    expect(await read(provider, posted(bounce({ Type: 'AutoResponder', TypeCode: 64, Inactive: false })), integration(credentials))).toEqual([]);
    expect(await read(provider, posted({ RecordType: 'SubscriptionChange', MessageID: messageId, Recipient: 'ada@example.test', SuppressSending: true, ChangedAt: '2026-06-01T12:00:00Z' }), integration(credentials))).toEqual([]);
  });

  it('refuses a webhook without the Basic credentials, with wrong ones, or when the integration has none', async () => {
    await expectRefused(read(provider, posted(bounce({}), null), integration(credentials)), /no Basic Authorization/);
    await expectRefused(read(provider, posted(bounce({}), 'tidings:guess'), integration(credentials)), /user or password is wrong/);
    await expectRefused(read(provider, callback(JSON.stringify(bounce({})), { authorization: 'Bearer x' }), integration(credentials)), /no Basic Authorization/);
    await expectRefused(read(provider, posted(bounce({})), integration()), /no inboundWebhookSigningKey/);
    await expectRefused(read(provider, { ...posted(bounce({})), body: '{' }, integration(credentials)), /not JSON/);
  });
});

describe('Mailgun (signed webhooks)', () => {
  const signingKey = 'key-webhook-signing-0123456789abcdef';
  const signed = (eventData: Record<string, unknown>, key = signingKey) => {
    const timestamp = String(nowSeconds());
    const token = createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 50);
    const signature = createHmac('sha256', key).update(timestamp + token).digest('hex');
    return callback(JSON.stringify({ signature: { timestamp, token, signature }, 'event-data': eventData }), { 'content-type': 'application/json' });
  };

  it('reads events matched to the id send returned (angle brackets and all)', async () => {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const provider = mailgunProvider(at(mailgun.url));
    const { id } = await provider.send(mail(), { apiKey: 'key-123', domain: 'mg.tidings.test', from: 'noreply@tidings.test' });
    expect(id).toMatch(/^<.+@mg\.tidings\.test>$/);
    const event = (fields: Record<string, unknown>) => ({
      timestamp: 1780315200.123456,
      recipient: 'ada@example.test',
      message: { headers: { 'message-id': id!.slice(1, -1), from: 'noreply@tidings.test', to: 'ada@example.test', subject: 'Welcome' } },
      ...fields,
    });
    const common = { providerMessageId: id, at: '2026-06-01T12:00:00.123Z', address: 'ada@example.test' };
    expect(await read(provider, signed(event({ event: 'delivered', id: 'ev-delivered', 'delivery-status': { code: 250, message: 'OK' } })), integration(signingKey))).toEqual([{ ...common, state: 'delivered', eventId: 'ev-delivered' }]);
    expect(
      await read(provider, signed(event({ event: 'failed', id: 'ev-perm', severity: 'permanent', reason: 'bounce', 'delivery-status': { code: 550, message: '5.1.1 No such user', description: 'No such mailbox' } })), integration(signingKey)),
    ).toEqual([{ ...common, state: 'bounced', bounce: 'hard', reason: 'No such mailbox', eventId: 'ev-perm' }]);
    expect(await read(provider, signed(event({ event: 'failed', id: 'ev-temp', severity: 'temporary', reason: 'generic', 'delivery-status': { code: 452, message: 'Mailbox full' } })), integration(signingKey))).toEqual([
      { ...common, state: 'bounced', bounce: 'soft', reason: 'Mailbox full', eventId: 'ev-temp' },
    ]);
    for (const [kind, state] of [['complained', 'complained'], ['opened', 'opened'], ['clicked', 'clicked']] as const) {
      expect(await read(provider, signed(event({ event: kind, id: `ev-${kind}` })), integration(signingKey))).toEqual([{ ...common, state, eventId: `ev-${kind}` }]);
    }
    // A Message-Id already in brackets is kept as it is.
    expect((await read(provider, signed(event({ event: 'delivered', id: 'x', message: { headers: { 'message-id': id } } })), integration(signingKey)))[0]!.providerMessageId).toBe(id);
  });

  it('returns no events for events Tidings does not track', async () => {
    const event = { event: 'accepted', id: 'a', timestamp: 1780315200, message: { headers: { 'message-id': 'x@mg.tidings.test' } } };
    expect(await read(mailgunProvider(), signed(event), integration(signingKey))).toEqual([]);
    expect(await read(mailgunProvider(), signed({ ...event, event: 'unsubscribed' }), integration(signingKey))).toEqual([]);
  });

  it('refuses a webhook unsigned, signed with another key, altered, or without a key', async () => {
    const event = { event: 'delivered', id: 'a', timestamp: 1780315200, message: { headers: { 'message-id': 'x@mg.tidings.test' } } };
    const provider = mailgunProvider();
    await expectRefused(read(provider, callback(JSON.stringify({ 'event-data': event })), integration(signingKey)), /not signed/);
    await expectRefused(read(provider, signed(event, 'another-key'), integration(signingKey)), /does not match/);
    const altered = signed(event);
    const payload = JSON.parse(altered.body) as { signature: { token: string } };
    payload.signature.token = `${payload.signature.token}x`;
    await expectRefused(read(provider, { ...altered, body: JSON.stringify(payload) }, integration(signingKey)), /does not match/);
    await expectRefused(read(provider, signed(event), integration()), /no inboundWebhookSigningKey/);
  });
});

describe('Mailgun callbacks through the engine: replays (issue 40)', () => {
  const signingKey = 'key-webhook-signing-0123456789abcdef';
  const YEAR = 365 * 86_400;

  /** An engine on the manual clock with a Mailgun integration, and one email to Ada sent through it. */
  async function mailgunEngine() {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const storage = memoryStorage();
    const tidings = createTidings({ storage, clock, providers: [mailgunProvider(at(mailgun.url))] });
    const integration = await tidings.integrations.upsert({
      providerId: 'mailgun',
      channel: 'email',
      active: true,
      primary: true,
      credentials: { apiKey: 'key-123', domain: 'mg.tidings.test', from: 'noreply@mg.tidings.test' },
      configurations: { inboundWebhookSigningKey: signingKey },
    });
    await tidings.workflows.upsert({ name: 'welcome', triggers: [{ identifier: 'welcome' }], steps: [{ template: { type: 'email', subject: 'Welcome', content: 'Hello Ada' } }] });
    const { transactionId } = await tidings.trigger({ name: 'welcome', to: { subscriberId: 'ada', email: 'ada@example.test' } });
    await tidings.runDue();
    const ada = async () => (await tidings.messages.byTransaction(transactionId!))[0]!;
    const messageId = (await ada()).providerMessageId!;
    expect(messageId).toMatch(/^<.+@mg\.tidings\.test>$/);
    /** The clock's time in Unix seconds, `offset` seconds away. */
    const seconds = (offset = 0) => String(Math.floor(clock.now().getTime() / 1000) + offset);
    /** A signature as Mailgun makes one: over timestamp + token only. */
    const signature = (timestamp: string, token = createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 50)) => ({ timestamp, token, signature: createHmac('sha256', signingKey).update(timestamp + token).digest('hex') });
    const event = (fields: Record<string, unknown>, id = messageId) => ({ timestamp: Number(seconds()), recipient: 'ada@example.test', message: { headers: { 'message-id': id.slice(1, -1) } }, ...fields });
    const post = (signed: ReturnType<typeof signature>, eventData: Record<string, unknown>) =>
      tidings.providerWebhook(integration._id, callback(JSON.stringify({ signature: signed, 'event-data': eventData }), { 'content-type': 'application/json' }));
    const hardBounce = (id = 'ev-bounce') => event({ event: 'failed', id, severity: 'permanent', reason: 'bounce', 'delivery-status': { code: 550, message: '5.1.1 No such user' } });
    const unchanged = async () => {
      expect(await ada()).toMatchObject({ status: 'sent' });
      expect(await tidings.suppressions.get('email', 'ada@example.test')).toBeNull();
    };
    return { tidings, storage, clock, integration, ada, seconds, signature, event, post, hardBounce, unchanged };
  }

  it('refuses a signature whose timestamp is more than 5 minutes from the engine clock, either way: a year-old one applies no forged hard bounce', async () => {
    const { seconds, signature, post, hardBounce, unchanged, event, clock, ada } = await mailgunEngine();
    await expect(post(signature(seconds(-YEAR)), hardBounce())).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/Mailgun callback refused: the signature timestamp is more than 300 s away from now/) });
    await expect(post(signature(seconds(-301)), hardBounce())).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(post(signature(seconds(301)), hardBounce())).rejects.toMatchObject({ code: 'unauthorized' });
    await unchanged();
    // Signed now, taken 5 minutes and 2 seconds later on the manual clock: too old.
    const signedNow = signature(seconds());
    clock.advance(302_000);
    await expect(post(signedNow, event({ event: 'delivered', id: 'ev-late' }))).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await ada()).delivery).toBeUndefined();
    // Within the window it applies.
    expect(await post(signature(seconds(-299)), event({ event: 'delivered', id: 'ev-delivered' }))).toEqual({ updated: 1, held: 0 });
    expect((await ada()).delivery?.state).toBe('delivered');
  });

  it('refuses a token used already, whatever the body: a captured signature carries no second event', async () => {
    const { tidings, seconds, signature, post, hardBounce, unchanged, event, ada, storage, integration } = await mailgunEngine();
    const captured = signature(seconds());
    expect(await post(captured, event({ event: 'delivered', id: 'ev-delivered' }))).toEqual({ updated: 1, held: 0 });
    await expect(post(captured, hardBounce())).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringContaining('signed token was used already') });
    // Nor for messages not stored yet (which would be held), nor with 400 KB fields (too large to store anyway): nothing is held.
    for (let i = 0; i < 20; i++) await expect(post(captured, event({ event: 'delivered', id: `ev-${i}` }, `<held-${i}@mg.tidings.test>`))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(post(captured, event({ event: 'delivered', id: 'ev-big', recipient: 'x'.repeat(400 * 1024) }, '<held-big@mg.tidings.test>'))).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await storage.deliveryStatus.countHeld(tidings.environmentId, integration._id)).toBe(0);
    await unchanged();
    expect((await ada()).delivery).toMatchObject({ state: 'delivered', history: [{ eventId: 'ev-delivered' }] });
  });

  it('refuses a report too large to store even with a fresh token (400 KB fields are never held); one of normal size for a message not stored yet is held', async () => {
    const { tidings, seconds, signature, post, event, storage, integration } = await mailgunEngine();
    const big = 'x'.repeat(400 * 1024);
    await expect(post(signature(seconds()), event({ event: 'delivered', id: 'ev-big', recipient: big }, '<not-yet@mg.tidings.test>'))).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/report 0 takes \d+ bytes, more than the 4096 one report may store/),
    });
    expect(await storage.deliveryStatus.countHeld(tidings.environmentId, integration._id)).toBe(0);
    expect(await post(signature(seconds()), event({ event: 'delivered', id: 'ev-early' }, '<not-yet@mg.tidings.test>'))).toEqual({ updated: 0, held: 1 });
    expect(await storage.deliveryStatus.countHeld(tidings.environmentId, integration._id)).toBe(1);
  });
});

describe('Amazon SES through SNS', () => {
  const topic = 'arn:aws:sns:eu-west-1:123456789012:ses-events';
  const certPath = '/SimpleNotificationService-01d088a6f77103d0fe307c0069e40ed6.pem';
  const certUrl = `https://sns.eu-west-1.amazonaws.com${certPath}`;

  /** A local SNS: serves the signing certificate and answers subscription confirmations. */
  async function sns(pem: string) {
    const service = await started(
      fakeService((call): ServiceReply => {
        if (call.method === 'GET' && call.path === certPath) return { status: 200, headers: { 'content-type': 'application/x-x509-ca-cert' }, body: pem };
        if (call.method === 'GET' && call.path.startsWith('/?Action=ConfirmSubscription')) return { status: 200, body: '<ConfirmSubscriptionResponse/>' };
        return { status: 404, body: 'not found' };
      }),
    );
    return { service, provider: sesProvider(at(service.url)) };
  }

  const SIGNED: Record<string, string[]> = {
    Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
    SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  };
  /** An SNS HTTP message signed as SNS documents it: "Key\nvalue\n" for each signed key present, SHA1withRSA (v1) or SHA256withRSA (v2). */
  function snsMessage(fields: Record<string, string>, key: KeyObject, version: '1' | '2' = '2') {
    const signed = SIGNED[fields.Type!]!.filter((name) => fields[name] !== undefined).map((name) => `${name}\n${fields[name]}\n`).join('');
    const Signature = sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(signed), key).toString('base64');
    const body = JSON.stringify({ ...fields, SignatureVersion: version, Signature, SigningCertURL: certUrl });
    return callback(body, { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': fields.Type!, 'x-amz-sns-topic-arn': fields.TopicArn! });
  }
  let snsId = 0;
  const notification = (sesEvent: unknown, key: KeyObject, version: '1' | '2' = '2', topicArn = topic) =>
    snsMessage({ Type: 'Notification', MessageId: `22b80b92-fdea-4c2c-8f9d-bdfb0c7bf32${++snsId}`, TopicArn: topicArn, Message: JSON.stringify(sesEvent), Timestamp: '2026-06-01T12:00:01.000Z', UnsubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe' }, key, version);
  const mailPart = { timestamp: '2026-06-01T11:59:59.000Z', source: 'noreply@tidings.test', messageId: '0102018f-5b3c-4d2e-9f3a-1b2c3d4e5f60-000000', destination: ['ada@example.test'] };

  it('reads SES events of signed notifications (SignatureVersion 1 and 2), fetching the certificate once', async () => {
    const { pem, privateKey } = selfSignedCertificate('sns.amazonaws.com');
    const { service, provider } = await sns(pem);
    const common = { providerMessageId: mailPart.messageId, address: 'ada@example.test' };

    const delivery = notification({ eventType: 'Delivery', mail: mailPart, delivery: { timestamp: '2026-06-01T12:00:00.500Z', recipients: ['ada@example.test'], smtpResponse: '250 ok' } }, privateKey, '1');
    expect(await read(provider, delivery, integration(topic))).toEqual([{ ...common, state: 'delivered', at: '2026-06-01T12:00:00.500Z', eventId: JSON.parse(delivery.body).MessageId }]);

    const permanent = { eventType: 'Bounce', mail: mailPart, bounce: { bounceType: 'Permanent', bounceSubType: 'General', timestamp: '2026-06-01T12:00:01.000Z', bouncedRecipients: [{ emailAddress: 'ada@example.test', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] } };
    expect(await read(provider, notification(permanent, privateKey), integration(topic))).toMatchObject([{ ...common, state: 'bounced', bounce: 'hard', reason: 'smtp; 550 5.1.1 user unknown', at: '2026-06-01T12:00:01.000Z' }]);
    const transient = { ...permanent, bounce: { ...permanent.bounce, bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: 'ada@example.test' }] } };
    expect(await read(provider, notification(transient, privateKey), integration(topic))).toMatchObject([{ state: 'bounced', bounce: 'soft', reason: 'Transient/MailboxFull' }]);
    // Identity notifications name the kind `notificationType`.
    const complaint = { notificationType: 'Complaint', mail: mailPart, complaint: { complainedRecipients: [{ emailAddress: 'ada@example.test' }], timestamp: '2026-06-01T12:10:00.000Z', complaintFeedbackType: 'abuse' } };
    expect(await read(provider, notification(complaint, privateKey), integration(topic))).toMatchObject([{ ...common, state: 'complained', reason: 'abuse', at: '2026-06-01T12:10:00.000Z' }]);
    expect(await read(provider, notification({ eventType: 'Open', mail: mailPart, open: { timestamp: '2026-06-01T12:20:00.000Z', userAgent: 'Mozilla', ipAddress: '192.0.2.1' } }, privateKey), integration(topic))).toMatchObject([
      { ...common, state: 'opened', at: '2026-06-01T12:20:00.000Z' },
    ]);
    expect(await read(provider, notification({ eventType: 'Click', mail: mailPart, click: { timestamp: '2026-06-01T12:21:00.000Z', link: 'https://tidings.example' } }, privateKey), integration(topic))).toMatchObject([{ state: 'clicked' }]);
    expect(await read(provider, notification({ eventType: 'Reject', mail: mailPart, reject: { reason: 'Bad content' } }, privateKey), integration(topic))).toMatchObject([{ state: 'failed', reason: 'Bad content' }]);

    const certificateFetches = service.calls.filter((call) => call.path === certPath);
    expect(certificateFetches).toHaveLength(1);
    expect(certificateFetches[0]!.method).toBe('GET');
  });

  it('returns no events for SES events Tidings does not track, nor for other messages on the topic', async () => {
    const { pem, privateKey } = selfSignedCertificate('sns.amazonaws.com');
    const { provider } = await sns(pem);
    for (const eventType of ['Send', 'DeliveryDelay', 'Subscription']) expect(await read(provider, notification({ eventType, mail: mailPart }, privateKey), integration(topic))).toEqual([]);
    const plain = snsMessage({ Type: 'Notification', MessageId: 'm-plain', TopicArn: topic, Subject: 'hello', Message: 'just text', Timestamp: '2026-06-01T12:00:00.000Z' }, privateKey);
    expect(await read(provider, plain, integration(topic))).toEqual([]);
  });

  it('confirms a signed subscription by GETting its SubscribeURL, and returns no events', async () => {
    const { pem, privateKey } = selfSignedCertificate('sns.amazonaws.com');
    const { service, provider } = await sns(pem);
    const subscribeUrl = `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topic)}&Token=2336412f37fb687f5d51e6e2425`;
    const confirmation = snsMessage(
      { Type: 'SubscriptionConfirmation', MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b', Token: '2336412f37fb687f5d51e6e2425', TopicArn: topic, Message: 'You have chosen to subscribe to the topic.', SubscribeURL: subscribeUrl, Timestamp: '2026-06-01T12:00:00.000Z' },
      privateKey,
    );
    expect(await read(provider, confirmation, integration(topic))).toEqual([]);
    const confirmed = service.calls.filter((call) => call.path.startsWith('/?Action=ConfirmSubscription'));
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]!.method).toBe('GET');
    expect(confirmed[0]!.path).toContain('Token=2336412f37fb687f5d51e6e2425');
  });

  it('refuses messages signed wrongly, altered, from another topic, or with a certificate URL off SNS', async () => {
    const { pem, privateKey } = selfSignedCertificate('sns.amazonaws.com');
    const { service, provider } = await sns(pem);
    const event = { eventType: 'Delivery', mail: mailPart, delivery: { timestamp: '2026-06-01T12:00:00.500Z', recipients: ['ada@example.test'] } };
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await expectRefused(read(provider, notification(event, other), integration(topic)), /Signature does not match/);
    const good = notification(event, privateKey);
    await expectRefused(read(provider, { ...good, body: good.body.replace('Delivery', 'Bounce') }, integration(topic)), /Signature does not match/);
    const unsigned = JSON.parse(good.body) as Record<string, unknown>;
    delete unsigned.Signature;
    await expectRefused(read(provider, { ...good, body: JSON.stringify(unsigned) }, integration(topic)), /not signed/);
    await expectRefused(read(provider, notification(event, privateKey, '2', 'arn:aws:sns:eu-west-1:999999999999:attacker'), integration(topic)), /topic is not one the integration accepts/);
    await expectRefused(read(provider, good, integration()), /no inboundWebhookSigningKey/);
    for (const url of ['https://evil.example/cert.pem', 'http://sns.eu-west-1.amazonaws.com/cert.pem', 'https://sns.eu-west-1.amazonaws.com.evil.example/cert.pem', 'https://sns.eu-west-1.amazonaws.com:8443/cert.pem']) {
      const moved = { ...JSON.parse(good.body), SigningCertURL: url };
      await expectRefused(read(provider, { ...good, body: JSON.stringify(moved) }, integration(topic)), /SigningCertURL is not an https URL/);
    }
    await expectRefused(read(provider, { ...good, body: JSON.stringify({ ...JSON.parse(good.body), SignatureVersion: '3' }) }, integration(topic)), /SignatureVersion/);
    await expectRefused(read(provider, callback('{"Type":"Other"}'), integration(topic)), /not an SNS message/);
    // Only the real certificate path was ever fetched.
    expect(service.calls.every((call) => call.path === certPath)).toBe(true);
  });

  it('refuses a certificate that is not valid now, or an answer without one', async () => {
    const expired = selfSignedCertificate('sns.amazonaws.com', { from: new Date(Date.now() - 10 * 86_400_000), to: new Date(Date.now() - 86_400_000) });
    const { provider } = await sns(expired.pem);
    await expectRefused(read(provider, notification({ eventType: 'Open', mail: mailPart }, expired.privateKey), integration(topic)), /not valid now/);
    const { provider: noCert } = await sns('not a certificate');
    await expectRefused(read(noCert, notification({ eventType: 'Open', mail: mailPart }, expired.privateKey), integration(topic)), /no X\.509 certificate/);
  });

  it('refuses a SigningCertURL on an S3 bucket host (anyone may own bucket "sns") and a certificate not issued to SNS', async () => {
    const { pem, privateKey } = selfSignedCertificate('sns.amazonaws.com');
    const { service, provider } = await sns(pem);
    const good = notification({ eventType: 'Open', mail: mailPart }, privateKey);
    for (const host of ['sns.s3.amazonaws.com', 'sns.s3-eu-west-1.amazonaws.com', 'sns.s3-external-1.amazonaws.com', 'sns.s3-website-us-east-1.amazonaws.com']) {
      const moved = { ...JSON.parse(good.body), SigningCertURL: `https://${host}${certPath}` };
      await expectRefused(read(provider, { ...good, body: JSON.stringify(moved) }, integration(topic)), /SigningCertURL is not an https URL/);
    }
    expect(service.calls).toHaveLength(0);
    // Signed with a certificate SNS never issued: its subject is not SNS's.
    const forged = selfSignedCertificate('attacker.example');
    const { provider: forgedSns } = await sns(forged.pem);
    await expectRefused(read(forgedSns, notification({ eventType: 'Open', mail: mailPart }, forged.privateKey), integration(topic)), /not issued to SNS \(sns\.amazonaws\.com or sns-signing\.eu-west-1\.amazonaws\.com\)/);
  });

  it('a certificate that cannot be had is a refusal (a 401 over HTTP), never a 500; unknown certificate URLs cost at most 10 fetches a minute', async () => {
    const { privateKey } = selfSignedCertificate('sns.amazonaws.com');
    const busy = await started(fakeService((): ServiceReply => ({ status: 503, body: 'busy' })));
    const provider = sesProvider(at(busy.url));
    await expectRefused(read(provider, notification({ eventType: 'Open', mail: mailPart }, privateKey), integration(topic)), /SigningCertURL answered 503/);
    const nowhere = sesProvider({ baseUrl: 'http://127.0.0.1:9', network: { allow: ['127.0.0.1'] } });
    await expectRefused(read(nowhere, notification({ eventType: 'Open', mail: mailPart }, privateKey), integration(topic)), /SigningCertURL could not be fetched/);
    // Through the engine: a 401 (unauthorized), not an error.
    const tidings = createTidings({ storage: memoryStorage(), providers: [provider] });
    const ses = await tidings.integrations.upsert({ providerId: 'ses', channel: 'email', active: true, credentials: { apiKey: 'AKIA', secretKey: 'secret', region: 'eu-west-1', from: 'noreply@tidings.test' }, configurations: { inboundWebhookSigningKey: topic } });
    await expect(tidings.providerWebhook(ses._id, notification({ eventType: 'Open', mail: mailPart }, privateKey))).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/SigningCertURL answered 503/) });

    // A caller inventing certificate URLs: 30 callbacks, at most 10 fetches, each a refusal.
    const { provider: inventive, service } = await sns(selfSignedCertificate('sns.amazonaws.com').pem);
    const good = notification({ eventType: 'Open', mail: mailPart }, privateKey);
    for (let i = 0; i < 30; i++) {
      const moved = { ...JSON.parse(good.body), SigningCertURL: `https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-${i.toString(16).padStart(32, 'a')}.pem` };
      await expectRefused(read(inventive, { ...good, body: JSON.stringify(moved) }, integration(topic)), /answered 404|more than 10 new SigningCertURLs/);
    }
    expect(service.calls.length).toBeLessThanOrEqual(10);
  });
});

describe('Twilio status callbacks', () => {
  const token = '12345678901234567890123456789012';
  const url = 'https://tidings.example/v1/inbound-webhooks/delivery-providers/env/twilio-sms';
  /** Twilio's X-Twilio-Signature: base64 HMAC-SHA1 of the URL followed by every POST field name and value, sorted by name. */
  const twilioSignature = (signedUrl: string, fields: Record<string, string>, key = token) =>
    createHmac('sha1', key)
      .update(Object.keys(fields).sort().reduce((data, name) => data + name + fields[name], signedUrl))
      .digest('base64');
  const status = (fields: Record<string, string>, options: { signedUrl?: string; key?: string } = {}) => {
    const all = { AccountSid: 'AC0123456789abcdef0123456789abcdef', ApiVersion: '2010-04-01', From: '+15005550006', To: '+14155552671', MessageSid: 'SM0123456789abcdef0123456789abcdef', SmsSid: 'SM0123456789abcdef0123456789abcdef', ...fields };
    return callback(new URLSearchParams(all).toString(), { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(options.signedUrl ?? url, all, options.key) }, url);
  };
  const provider = twilioProvider();
  const credentials = { accountSid: 'AC0123456789abcdef0123456789abcdef', token, from: '+15005550006' };

  it('reads delivered, undelivered and failed (permanent for numbers that can never take an SMS), read as opened', async () => {
    const [delivered] = await read(provider, status({ MessageStatus: 'delivered', SmsStatus: 'delivered' }), integration(undefined, credentials));
    expect(delivered).toEqual({ providerMessageId: 'SM0123456789abcdef0123456789abcdef', state: 'delivered', at: expect.any(String), eventId: expect.stringMatching(/^[0-9a-f]{40}$/), address: '+14155552671' });
    // The same callback again has the same event id.
    expect((await read(provider, status({ MessageStatus: 'delivered', SmsStatus: 'delivered' }), integration(undefined, credentials)))[0]!.eventId).toBe(delivered!.eventId);

    const landline = await read(provider, status({ MessageStatus: 'undelivered', SmsStatus: 'undelivered', ErrorCode: '30006' }), integration(undefined, credentials));
    expect(landline).toMatchObject([{ state: 'failed', permanent: true, reason: '30006' }]);
    expect(landline[0]!.eventId).not.toBe(delivered!.eventId);
    const unsubscribed = await read(provider, status({ MessageStatus: 'failed', ErrorCode: '21610' }), integration(undefined, credentials));
    expect(unsubscribed).toMatchObject([{ state: 'failed', permanent: true, reason: '21610' }]);
    const unreachable = await read(provider, status({ MessageStatus: 'undelivered', ErrorCode: '30003' }), integration(undefined, credentials));
    expect(unreachable).toMatchObject([{ state: 'failed', reason: '30003' }]);
    expect(unreachable[0]!.permanent).toBeUndefined();
    expect(await read(provider, status({ MessageStatus: 'read' }), integration(undefined, credentials))).toMatchObject([{ state: 'opened' }]);
  });

  it('returns no events for queued, sending and sent', async () => {
    for (const state of ['queued', 'sending', 'sent', 'accepted']) expect(await read(provider, status({ MessageStatus: state, SmsStatus: state }), integration(undefined, credentials))).toEqual([]);
  });

  it('accepts a signature over the URL with the standard port written out', async () => {
    const call = status({ MessageStatus: 'delivered' }, { signedUrl: url.replace('tidings.example/', 'tidings.example:443/') });
    expect(await read(provider, call, integration(undefined, credentials))).toHaveLength(1);
  });

  it('refuses a callback unsigned, signed with another token, for another URL, altered, or without the token credential', async () => {
    const fields = { MessageStatus: 'delivered' };
    const unsigned = status(fields);
    await expectRefused(read(provider, { ...unsigned, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, integration(undefined, credentials)), /not signed/);
    await expectRefused(read(provider, status(fields, { key: 'another-auth-token' }), integration(undefined, credentials)), /does not match/);
    await expectRefused(read(provider, status(fields, { signedUrl: 'https://tidings.example/elsewhere' }), integration(undefined, credentials)), /does not match/);
    const altered = status({ MessageStatus: 'undelivered', ErrorCode: '30003' });
    await expectRefused(read(provider, { ...altered, body: altered.body.replace('30003', '30006') }, integration(undefined, credentials)), /does not match/);
    await expectRefused(read(provider, status(fields), integration(undefined, { accountSid: credentials.accountSid })), /no token/);
  });
});

describe('Vonage signed delivery receipts', () => {
  const secret = 'vonageSignatureSecret0123456789abcdef';
  /**
   * Vonage's signature: `&name=value` for every field but `sig`, sorted by name, `&` and `=` in values
   * replaced by `_`; MD5 of that followed by the secret (md5hash), or an HMAC keyed with the secret.
   */
  const vonageSig = (fields: Record<string, string>, key: string, method: 'md5hash' | 'sha256' = 'md5hash') => {
    const signed = Object.keys(fields)
      .filter((name) => name !== 'sig')
      .sort()
      .map((name) => `&${name}=${fields[name]!.replace(/[&=]/g, '_')}`)
      .join('');
    return method === 'md5hash' ? createHash('md5').update(signed + key).digest('hex') : createHmac('sha256', key).update(signed).digest('hex').toUpperCase();
  };
  const receipt = (fields: Record<string, string>) => ({
    msisdn: '447700900000',
    to: 'Tidings',
    'network-code': '23410',
    messageId: '0A0000001234567B',
    price: '0.03330000',
    scts: '2606011200',
    'api-key': 'abcd1234',
    'message-timestamp': '2026-06-01 12:00:00',
    timestamp: String(nowSeconds()),
    nonce: 'ec11dd3e-1e7f-4db5-9467-82b02cd223b9',
    ...fields,
  });
  const signedForm = (fields: Record<string, string>, key = secret, method: 'md5hash' | 'sha256' = 'md5hash') => {
    const all = receipt(fields);
    return callback(new URLSearchParams({ ...all, sig: vonageSig(all, key, method) }).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
  };
  const provider = vonageProvider();

  it('signs as the Vonage SDKs do (their test vector)', () => {
    expect(vonageSig({ a: '1', b: '2', timestamp: '1461605396' }, 'secret')).toBe('6af838ef94998832dbfc29020b564830');
  });

  it('reads delivered and failed receipts (permanent for numbers gone for good)', async () => {
    const [delivered] = await read(provider, signedForm({ status: 'delivered', 'err-code': '0' }), integration(secret));
    expect(delivered).toEqual({ providerMessageId: '0A0000001234567B', state: 'delivered', at: '2026-06-01T12:00:00.000Z', eventId: expect.stringMatching(/^[0-9a-f]{40}$/), address: '+447700900000' });
    expect(await read(provider, signedForm({ status: 'failed', 'err-code': '3' }), integration(secret))).toMatchObject([{ state: 'failed', permanent: true, reason: '3 absent subscriber - permanent' }]);
    expect(await read(provider, signedForm({ status: 'rejected', 'err-code': '9' }), integration(secret))).toMatchObject([{ state: 'failed', permanent: true, reason: '9 illegal number' }]);
    const expired = await read(provider, signedForm({ status: 'expired', 'err-code': '2' }), integration(secret));
    expect(expired).toMatchObject([{ state: 'failed', reason: '2 absent subscriber - temporary' }]);
    expect(expired[0]!.permanent).toBeUndefined();
  });

  it('reads POST-JSON and GET receipts, and HMAC signatures when the key names the method', async () => {
    const fields = receipt({ status: 'delivered', 'err-code': '0' });
    const json = callback(JSON.stringify({ ...fields, sig: vonageSig(fields, secret, 'sha256') }), { 'content-type': 'application/json' });
    expect(await read(provider, json, integration(`sha256:${secret}`))).toMatchObject([{ state: 'delivered' }]);
    // Unprefixed, the method follows from the signature's length.
    expect(await read(provider, json, integration(secret))).toMatchObject([{ state: 'delivered' }]);
    const query = new URLSearchParams({ ...fields, sig: vonageSig(fields, secret) }).toString();
    const get = callback('', {}, `https://tidings.example/v1/inbound-webhooks/delivery-providers/env/nexmo?${query}`, 'GET');
    expect(await read(provider, get, integration(secret))).toMatchObject([{ state: 'delivered', providerMessageId: '0A0000001234567B' }]);
  });

  it('returns no events for accepted, buffered and unknown', async () => {
    for (const status of ['accepted', 'buffered', 'unknown']) expect(await read(provider, signedForm({ status, 'err-code': '0' }), integration(secret))).toEqual([]);
  });

  it('refuses unsigned receipts, even when the integration has no signing key, and wrong or altered ones', async () => {
    const unsigned = callback(new URLSearchParams(receipt({ status: 'delivered', 'err-code': '0' })).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    await expectRefused(read(provider, unsigned, integration(secret)), /not signed/);
    await expectRefused(read(provider, unsigned, integration()), /no inboundWebhookSigningKey/);
    await expectRefused(read(provider, signedForm({ status: 'delivered', 'err-code': '0' }, 'another-secret'), integration(secret)), /sig does not match/);
    const altered = signedForm({ status: 'failed', 'err-code': '2' });
    await expectRefused(read(provider, { ...altered, body: altered.body.replace('err-code=2', 'err-code=3') }, integration(secret)), /sig does not match/);
    // Pinned to another method, a valid MD5-hash signature does not pass.
    await expectRefused(read(provider, signedForm({ status: 'delivered', 'err-code': '0' }), integration(`sha256:${secret}`)), /sig does not match/);
    await expectRefused(read(provider, callback('{"messageId":', { 'content-type': 'application/json' }), integration(secret)), /not JSON/);
  });

  it('refuses a receipt whose signed timestamp is more than 5 minutes from the engine clock, either way, or that has none', async () => {
    // The engine's clock, an hour past the machine's (a manual clock, say).
    const clock = (nowSeconds() + 3_600) * 1000;
    const signedAt = (offsetSeconds: number) => signedForm({ status: 'failed', 'err-code': '3', timestamp: String(clock / 1000 + offsetSeconds) });
    /** Read as the engine reads it: with its clock's time. */
    const readAt = (call: ProviderCallback) => provider.readStatus!(call, { ...integration(secret), now: new Date(clock) });
    // A year-old receipt, correctly signed, forges no permanent failure.
    await expectRefused(readAt(signedAt(-365 * 86_400)), /Vonage callback refused: the signature timestamp is more than 300 s away from now/);
    await expectRefused(readAt(signedAt(-301)), /more than 300 s/);
    await expectRefused(readAt(signedAt(301)), /more than 300 s/);
    expect(await readAt(signedAt(-299))).toMatchObject([{ state: 'failed', permanent: true }]);
    expect(await readAt(signedAt(299))).toMatchObject([{ state: 'failed', permanent: true }]);
    // The engine's clock counts, not the machine's: signed at the machine's now, an hour before the engine's.
    await expectRefused(readAt(signedForm({ status: 'delivered', 'err-code': '0' })), /more than 300 s/);
    const fields: Record<string, string> = receipt({ status: 'delivered', 'err-code': '0' });
    delete fields.timestamp;
    const untimed = callback(new URLSearchParams({ ...fields, sig: vonageSig(fields, secret) }).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    await expectRefused(read(provider, untimed, integration(secret)), /no signed timestamp/);
  });
});
