import { createTidings, type Credentials, type JsonObject, type Provider } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { mailgunProvider } from '../src/email/mailgun.js';
import { postmarkProvider } from '../src/email/postmark.js';
import { resendProvider } from '../src/email/resend.js';
import { sendgridProvider } from '../src/email/sendgrid.js';
import { sesProvider } from '../src/email/ses.js';
import { consoleProviders } from '../src/console.js';
import { serviceProviders } from '../src/service-providers.js';
import { mailboxName, type ReceivedFile } from './services/email-fake-server.js';
import { fakeMailgun } from './services/email-mailgun.js';
import { fakePostmark } from './services/email-postmark.js';
import { fakeResend } from './services/email-resend.js';
import { fakeSendgrid } from './services/email-sendgrid.js';
import { awsError, fakeSes } from './services/email-ses.js';
import { started } from './started.js';

/** The welcome email without a layout (`layoutId: null`): the body in a bare document. */
const BARE_HTML = '<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"></head><body>Hello <b>Ada</b></body></html>';

/** The fake services listen on loopback, which providers refuse unless allowed. */
const at = (url: string) => ({ baseUrl: url, network: { allow: ['127.0.0.1'] } });

/** A trigger's `overrides.email` as Novu documents it: one email to a list, copied, from another sender. */
const toAList = {
  email: {
    to: ['team@example.test', 'ops@example.test'],
    cc: ['boss@example.test'],
    bcc: ['audit@example.test'],
    from: 'billing@tidings.test',
    senderName: 'Billing',
    replyTo: 'help@tidings.test',
  },
};

/**
 * An engine with one email integration of `provider`, and a welcome workflow sent to Ada. Returns
 * the transaction, the stored message and the provider's message id (from the delivery trace).
 */
async function engine(provider: Provider, credentials: Credentials, options: { links?: { baseUrl: string } } = {}) {
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, providers: [provider], ...options });
  await tidings.integrations.upsert({ providerId: provider.id, channel: 'email', credentials, active: true, primary: true });
  await tidings.workflows.upsert({
    name: 'welcome',
    triggers: [{ identifier: 'welcome' }],
    steps: [{ template: { type: 'email', subject: 'Welcome {{ subscriber.firstName }}', content: 'Hello <b>{{ subscriber.firstName }}</b>', layoutId: null } }],
  });
  const send = async (email = 'ada@example.test', overrides: JsonObject = {}, payload: JsonObject = {}) => {
    const result = await tidings.trigger({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada', email }, overrides, payload });
    await tidings.runDue();
    return result.transactionId!;
  };
  const message = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId))[0];
  const trace = async (transactionId: string) => (await tidings.explain(transactionId))[0]!.entries.map((e) => e.reason).join('\n');
  return { tidings, clock, send, message, trace };
}

describe('SendGrid', () => {
  const credentials = { apiKey: 'SG.key', from: 'noreply@tidings.test', senderName: 'Tidings' };

  it('sends personalizations, sender, subject and text-then-HTML content; the id is X-Message-Id', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['noreply@tidings.test'] }));
    const { send, message, trace } = await engine(sendgridProvider(at(sendgrid.url)), { ...credentials, ipPoolName: 'transactional' });
    const tx = await send();
    expect(sendgrid.accepted).toHaveLength(1);
    const mail = sendgrid.accepted[0]!;
    expect(mail).toMatchObject({
      personalizations: [{ to: [{ email: 'ada@example.test' }] }],
      from: { email: 'noreply@tidings.test', name: 'Tidings' },
      subject: 'Welcome Ada',
      content: [
        { type: 'text/plain', value: 'Hello Ada' },
        { type: 'text/html', value: BARE_HTML },
      ],
      ip_pool_name: 'transactional',
    });
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'sendgrid', email: 'ada@example.test' });
    expect(await trace(tx)).toContain(`as ${mail.id}`);
  });

  it('overrides.email: to, cc and bcc in personalizations[0], from with senderName, reply_to; overrides.sendgrid’s addressing merged over it, not sent raw', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['noreply@tidings.test', 'billing@tidings.test'] }));
    const { send, message } = await engine(sendgridProvider(at(sendgrid.url)), credentials);
    const tx = await send('ada@example.test', toAList);
    expect(await message(tx)).toMatchObject({ status: 'sent', email: 'ada@example.test' });
    expect(sendgrid.accepted[0]).toMatchObject({
      personalizations: [
        {
          to: [{ email: 'ada@example.test' }, { email: 'team@example.test' }, { email: 'ops@example.test' }],
          cc: [{ email: 'boss@example.test' }],
          bcc: [{ email: 'audit@example.test' }],
        },
      ],
      from: { email: 'billing@tidings.test', name: 'Billing' },
      reply_to: { email: 'help@tidings.test' },
    });
    // An address named twice (SendGrid refuses that within a personalization) is sent to once.
    await send('ada@example.test', { email: { to: ['Ada@example.test'], cc: ['boss@example.test'] }, sendgrid: { bcc: ['boss@example.test', 'audit@example.test'], ip_pool_name: 'alerts' } });
    const merged = sendgrid.accepted[1]!;
    expect(merged.personalizations).toEqual([{ to: [{ email: 'ada@example.test' }], cc: [{ email: 'boss@example.test' }], bcc: [{ email: 'audit@example.test' }] }]);
    expect(merged).toMatchObject({ from: { email: 'noreply@tidings.test', name: 'Tidings' }, ip_pool_name: 'alerts' });
    expect(merged).not.toHaveProperty('bcc');
  });

  it('a sender that is not a verified identity (403) and a bad API key (401) are final errors', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['other@tidings.test'] }));
    const unverified = await engine(sendgridProvider(at(sendgrid.url)), credentials);
    expect(await unverified.message(await unverified.send())).toMatchObject({ status: 'error', errorId: 'http_403', errorText: 'SendGrid answered 403' });
    const badKey = await engine(sendgridProvider(at(sendgrid.url)), { ...credentials, apiKey: 'SG.wrong' });
    expect(await badKey.message(await badKey.send())).toMatchObject({ status: 'error', errorId: 'http_401' });
    expect(sendgrid.accepted).toHaveLength(0);
  });

  it('a 503 is retried after the backoff and then sent', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['noreply@tidings.test'] }));
    sendgrid.outage({ status: 503, body: { errors: [{ message: 'Service Unavailable', field: null, help: null }] } });
    const { send, message, clock, tidings } = await engine(sendgridProvider(at(sendgrid.url)), credentials);
    const tx = await send();
    expect(await message(tx)).toBeUndefined();
    clock.advance(1_000);
    await tidings.runDue();
    expect(sendgrid.calls).toHaveLength(2);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });
});

describe('Resend', () => {
  const credentials = { apiKey: 're_key', from: 'noreply@tidings.test', senderName: 'Tidings' };

  it('sends from, to, subject, html and text with a Bearer key and a User-Agent; the id is the answer’s id', async () => {
    const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: ['tidings.test'] }));
    const { send, message, trace } = await engine(resendProvider(at(resend.url)), credentials);
    const tx = await send();
    expect(resend.accepted).toHaveLength(1);
    const mail = resend.accepted[0]!;
    expect(mail).toMatchObject({ from: 'Tidings <noreply@tidings.test>', to: ['ada@example.test'], subject: 'Welcome Ada', html: BARE_HTML, text: 'Hello Ada' });
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'resend' });
    expect(await trace(tx)).toContain(`as ${mail.id}`);
  });

  it('overrides.email: Resend’s to, cc, bcc, from and reply_to', async () => {
    const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: ['tidings.test'] }));
    const { send, message } = await engine(resendProvider(at(resend.url)), credentials);
    const tx = await send('ada@example.test', toAList);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
    expect(resend.accepted[0]).toMatchObject({
      from: 'Billing <billing@tidings.test>',
      to: ['ada@example.test', 'team@example.test', 'ops@example.test'],
      cc: ['boss@example.test'],
      bcc: ['audit@example.test'],
      reply_to: 'help@tidings.test',
    });
    expect(resend.accepted[0]).not.toHaveProperty('replyTo');
  });

  it('Resend’s error name is the errorId: invalid_api_key, validation_error for an unverified domain', async () => {
    const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: ['tidings.test'] }));
    const badKey = await engine(resendProvider(at(resend.url)), { ...credentials, apiKey: 're_wrong' });
    expect(await badKey.message(await badKey.send())).toMatchObject({ status: 'error', errorId: 'invalid_api_key', errorText: 'Resend answered 403 (invalid_api_key)' });
    const otherDomain = await engine(resendProvider(at(resend.url)), { ...credentials, from: 'noreply@unverified.test' });
    expect(await otherDomain.message(await otherDomain.send())).toMatchObject({ status: 'error', errorId: 'validation_error' });
    expect(resend.accepted).toHaveLength(0);
  });

  it('a 429 is retried no sooner than its Retry-After', async () => {
    const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: ['tidings.test'] }));
    resend.outage({ status: 429, headers: { 'retry-after': '3' }, body: { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests.' } });
    const { send, message, clock, tidings } = await engine(resendProvider(at(resend.url)), credentials);
    const tx = await send();
    clock.advance(1_000);
    await tidings.runDue();
    expect(resend.calls).toHaveLength(1);
    clock.advance(2_000);
    await tidings.runDue();
    expect(resend.calls).toHaveLength(2);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });
});

describe('Postmark', () => {
  const credentials = { apiKey: 'server-token', from: 'noreply@tidings.test', senderName: 'Acme, Inc.' };

  it('sends From, To, Subject, HtmlBody and TextBody with the server token; the id is MessageID', async () => {
    const postmark = await started(fakePostmark({ token: 'server-token', senderSignatures: ['noreply@tidings.test'] }));
    const { send, message, trace } = await engine(postmarkProvider(at(postmark.url)), credentials);
    const tx = await send();
    expect(postmark.accepted).toHaveLength(1);
    const mail = postmark.accepted[0]!;
    expect(mail).toMatchObject({ From: '"Acme, Inc." <noreply@tidings.test>', To: 'ada@example.test', Subject: 'Welcome Ada', HtmlBody: BARE_HTML, TextBody: 'Hello Ada' });
    expect(mailboxName(mail.From)).toBe('Acme, Inc.');
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'postmark' });
    expect(await trace(tx)).toContain(`as ${mail.MessageID}`);
  });

  it('overrides.email: To, Cc and Bcc as comma-separated lists, From, ReplyTo', async () => {
    const postmark = await started(fakePostmark({ token: 'server-token', senderSignatures: ['billing@tidings.test'] }));
    const { send, message } = await engine(postmarkProvider(at(postmark.url)), credentials);
    expect(await message(await send('ada@example.test', toAList))).toMatchObject({ status: 'sent' });
    expect(postmark.accepted[0]).toMatchObject({
      From: 'Billing <billing@tidings.test>',
      To: 'ada@example.test, team@example.test, ops@example.test',
      Cc: 'boss@example.test',
      Bcc: 'audit@example.test',
      ReplyTo: 'help@tidings.test',
    });
  });

  it('Postmark’s ErrorCode is the errorId: 406 for an inactive recipient, 10 for a bad token', async () => {
    const postmark = await started(fakePostmark({ token: 'server-token', senderSignatures: ['noreply@tidings.test'], inactiveRecipients: ['bounced@example.test'] }));
    const inactive = await engine(postmarkProvider(at(postmark.url)), credentials);
    expect(await inactive.message(await inactive.send('bounced@example.test'))).toMatchObject({ status: 'error', errorId: '406', errorText: 'Postmark answered 422 (406)' });
    const badToken = await engine(postmarkProvider(at(postmark.url)), { ...credentials, apiKey: 'wrong' });
    expect(await badToken.message(await badToken.send())).toMatchObject({ status: 'error', errorId: '10' });
    expect(postmark.accepted).toHaveLength(0);
  });

  it('a 500 is retried and then sent', async () => {
    const postmark = await started(fakePostmark({ token: 'server-token', senderSignatures: ['noreply@tidings.test'] }));
    postmark.outage({ status: 500, body: { ErrorCode: 0, Message: 'Internal Server Error' } });
    const { send, message, clock, tidings } = await engine(postmarkProvider(at(postmark.url)), credentials);
    const tx = await send();
    clock.advance(1_000);
    await tidings.runDue();
    expect(postmark.calls).toHaveLength(2);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });
});

describe('Mailgun', () => {
  const credentials = { apiKey: 'key-123', user: 'api', domain: 'mg.tidings.test', from: 'noreply@mg.tidings.test', senderName: 'Tidings' };

  it('posts form fields to /v3/{domain}/messages with Basic auth; trigger overrides add fields; the id is the answer’s id', async () => {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const { send, message, trace } = await engine(mailgunProvider(at(mailgun.url)), credentials);
    const tx = await send('ada@example.test', { mailgun: { 'o:tag': ['welcome', 'onboarding'], 'h:Reply-To': 'help@tidings.test' } });
    expect(mailgun.accepted).toHaveLength(1);
    const mail = mailgun.accepted[0]!;
    expect(mail.fields).toEqual({
      from: ['Tidings <noreply@mg.tidings.test>'],
      to: ['ada@example.test'],
      subject: ['Welcome Ada'],
      text: ['Hello Ada'],
      html: [BARE_HTML],
      'o:tag': ['welcome', 'onboarding'],
      'h:Reply-To': ['help@tidings.test'],
    });
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'mailgun' });
    expect(await trace(tx)).toContain(`as ${mail.id}`);
  });

  it('overrides.email: to, cc and bcc fields repeated, from, the h:Reply-To header', async () => {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const { send, message } = await engine(mailgunProvider(at(mailgun.url)), credentials);
    expect(await message(await send('ada@example.test', toAList))).toMatchObject({ status: 'sent' });
    expect(mailgun.accepted[0]!.fields).toMatchObject({
      from: ['Billing <billing@tidings.test>'],
      to: ['ada@example.test', 'team@example.test', 'ops@example.test'],
      cc: ['boss@example.test'],
      bcc: ['audit@example.test'],
      'h:Reply-To': ['help@tidings.test'],
    });
  });

  it('the integration’s baseUrl (the EU region) wins over the provider’s', async () => {
    const us = await started(fakeMailgun({ apiKey: 'key-123', domains: [] }));
    const eu = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const { send, message } = await engine(mailgunProvider(at(us.url)), { ...credentials, baseUrl: eu.url });
    expect(await message(await send())).toMatchObject({ status: 'sent' });
    expect(us.calls).toHaveLength(0);
    expect(eu.accepted).toHaveLength(1);
  });

  it('a wrong API key (401) and an unknown domain (404) are final errors', async () => {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const badKey = await engine(mailgunProvider(at(mailgun.url)), { ...credentials, apiKey: 'key-wrong' });
    expect(await badKey.message(await badKey.send())).toMatchObject({ status: 'error', errorId: 'http_401' });
    const otherDomain = await engine(mailgunProvider(at(mailgun.url)), { ...credentials, domain: 'elsewhere.test' });
    expect(await otherDomain.message(await otherDomain.send())).toMatchObject({ status: 'error', errorId: 'http_404' });
  });
});

describe('Amazon SES', () => {
  const account = { region: 'eu-west-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/EXAMPLE+key', verifiedIdentities: ['tidings.test'] };
  const credentials = { apiKey: 'AKIAEXAMPLE', secretKey: 'secret/EXAMPLE+key', region: 'eu-west-1', from: 'noreply@tidings.test', senderName: 'Zoë' };

  it('sends a SigV4-signed SendEmail (scope region/ses, signature verified); the id is MessageId', async () => {
    const ses = await started(fakeSes(account));
    const { send, message, trace } = await engine(sesProvider(at(ses.url)), credentials);
    const tx = await send();
    expect(ses.accepted).toHaveLength(1);
    expect(ses.calls[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/);
    const mail = ses.accepted[0]!;
    expect(mail).toMatchObject({
      Destination: { ToAddresses: ['ada@example.test'] },
      Content: { Simple: { Subject: { Data: 'Welcome Ada' }, Body: { Text: { Data: 'Hello Ada' }, Html: { Data: BARE_HTML } } } },
    });
    // A non-ASCII display name goes as a MIME encoded-word, as SES requires.
    expect(mail.FromEmailAddress).toMatch(/^=\?UTF-8\?B\?.+\?= <noreply@tidings\.test>$/);
    expect(mailboxName(mail.FromEmailAddress)).toBe('Zoë');
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'ses' });
    expect(await trace(tx)).toContain(`as ${mail.MessageId}`);
  });

  it('overrides.email: Destination’s ToAddresses, CcAddresses and BccAddresses, FromEmailAddress, ReplyToAddresses', async () => {
    const ses = await started(fakeSes(account));
    const { send, message } = await engine(sesProvider(at(ses.url)), credentials);
    expect(await message(await send('ada@example.test', toAList))).toMatchObject({ status: 'sent' });
    expect(ses.accepted[0]).toMatchObject({
      FromEmailAddress: 'Billing <billing@tidings.test>',
      Destination: { ToAddresses: ['ada@example.test', 'team@example.test', 'ops@example.test'], CcAddresses: ['boss@example.test'], BccAddresses: ['audit@example.test'] },
      ReplyToAddresses: ['help@tidings.test'],
    });
  });

  it('the AWS error type is the errorId: SignatureDoesNotMatch for a wrong secret, MessageRejected for an unverified sender', async () => {
    const ses = await started(fakeSes(account));
    const wrongSecret = await engine(sesProvider(at(ses.url)), { ...credentials, secretKey: 'not-the-secret' });
    expect(await wrongSecret.message(await wrongSecret.send())).toMatchObject({ status: 'error', errorId: 'SignatureDoesNotMatch' });
    const wrongRegion = await engine(sesProvider(at(ses.url)), { ...credentials, region: 'us-east-1' });
    expect(await wrongRegion.message(await wrongRegion.send())).toMatchObject({ status: 'error', errorId: 'SignatureDoesNotMatch' });
    const unverified = await engine(sesProvider(at(ses.url)), { ...credentials, from: 'noreply@unverified.test' });
    expect(await unverified.message(await unverified.send())).toMatchObject({ status: 'error', errorId: 'MessageRejected', errorText: 'SES answered 400 (MessageRejected)' });
    expect(ses.accepted).toHaveLength(0);
  });

  it('TooManyRequestsException (429) is retried and then sent', async () => {
    const ses = await started(fakeSes(account));
    ses.outage(awsError(429, 'TooManyRequestsException', 'Too many requests'));
    const { send, message, clock, tidings } = await engine(sesProvider(at(ses.url)), credentials);
    const tx = await send();
    expect(await message(tx)).toBeUndefined();
    clock.advance(1_000);
    await tidings.runDue();
    expect(ses.calls).toHaveLength(2);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });

  it('an integration without a region fails at once, naming the credential; nothing is sent', async () => {
    const ses = await started(fakeSes(account));
    const { send, message } = await engine(sesProvider(at(ses.url)), { ...credentials, region: undefined });
    expect(await message(await send())).toMatchObject({ status: 'error', errorId: 'missing_credentials', errorText: 'the SES integration has no region' });
    expect(ses.calls).toHaveLength(0);
  });
});

describe('one-click unsubscribe headers, as each service documents them', () => {
  const links = { links: { baseUrl: 'https://notify.tidings.test' } };
  const ONE_CLICK = 'List-Unsubscribe=One-Click';
  const LINK = /^<https:\/\/notify\.tidings\.test\/unsubscribe\/[\w-]+\.[\w-]+>$/;
  const sender = { from: 'noreply@tidings.test', senderName: 'Tidings' };

  it('SendGrid: the top-level headers object', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['noreply@tidings.test'] }));
    await (await engine(sendgridProvider(at(sendgrid.url)), { apiKey: 'SG.key', ...sender }, links)).send();
    expect(sendgrid.accepted[0]!['headers']).toEqual({ 'List-Unsubscribe': expect.stringMatching(LINK), 'List-Unsubscribe-Post': ONE_CLICK });
  });

  it('Resend: the headers object', async () => {
    const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: ['tidings.test'] }));
    await (await engine(resendProvider(at(resend.url)), { apiKey: 're_key', ...sender }, links)).send();
    expect(resend.accepted[0]!['headers']).toEqual({ 'List-Unsubscribe': expect.stringMatching(LINK), 'List-Unsubscribe-Post': ONE_CLICK });
  });

  it('Postmark: the Headers list of { Name, Value }', async () => {
    const postmark = await started(fakePostmark({ token: 'server-token', senderSignatures: ['noreply@tidings.test'] }));
    await (await engine(postmarkProvider(at(postmark.url)), { apiKey: 'server-token', ...sender }, links)).send();
    expect(postmark.accepted[0]!['Headers']).toEqual([{ Name: 'List-Unsubscribe', Value: expect.stringMatching(LINK) }, { Name: 'List-Unsubscribe-Post', Value: ONE_CLICK }]);
  });

  it('Mailgun: h: form fields', async () => {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    await (await engine(mailgunProvider(at(mailgun.url)), { apiKey: 'key-123', user: 'api', domain: 'mg.tidings.test', from: 'noreply@mg.tidings.test' }, links)).send();
    const fields = mailgun.accepted[0]!.fields;
    expect(fields['h:List-Unsubscribe']).toEqual([expect.stringMatching(LINK)]);
    expect(fields['h:List-Unsubscribe-Post']).toEqual([ONE_CLICK]);
  });

  it('Amazon SES: Content.Simple.Headers', async () => {
    const ses = await started(fakeSes({ region: 'eu-west-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/EXAMPLE+key', verifiedIdentities: ['tidings.test'] }));
    await (await engine(sesProvider(at(ses.url)), { apiKey: 'AKIAEXAMPLE', secretKey: 'secret/EXAMPLE+key', region: 'eu-west-1', ...sender }, links)).send();
    expect(ses.accepted[0]!['Content']).toMatchObject({ Simple: { Headers: [{ Name: 'List-Unsubscribe', Value: expect.stringMatching(LINK) }, { Name: 'List-Unsubscribe-Post', Value: ONE_CLICK }] } });
  });
});

describe('payload.attachments, as each service documents files', () => {
  // Every byte value, so an encoding that is not binary-safe shows.
  const PDF = Buffer.from(Array.from({ length: 512 }, (_, n) => (n * 7) % 256));
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10]);
  const attachments = {
    attachments: [
      { file: PDF.toString('base64'), name: 'invoice.pdf', mime: 'application/pdf' },
      { file: PNG.toString('base64'), name: 'logo.png', mime: 'image/png', cid: 'logo' },
    ],
  };
  const sender = { from: 'noreply@tidings.test', senderName: 'Tidings' };
  /** What a service received, comparable: file name, type, bytes in base64, Content-ID; by file name (MIME puts inline files first). */
  const received = (files: readonly ReceivedFile[]) => files.map((f) => [f.filename, f.contentType, f.content.toString('base64'), f.cid ?? null]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const SENT = [
    ['invoice.pdf', 'application/pdf', PDF.toString('base64'), null],
    ['logo.png', 'image/png', PNG.toString('base64'), 'logo'],
  ];

  it('every hosted email provider declares that it sends files', () => {
    const email = serviceProviders().filter((p) => p.channel === 'email');
    expect(email.map((p) => [p.id, p.attachments])).toEqual(['sendgrid', 'resend', 'postmark', 'mailgun', 'ses'].map((id) => [id, true]));
  });

  it('SendGrid: attachments of base64 content, filename, type and disposition; the inline one with its content_id', async () => {
    const sendgrid = await started(fakeSendgrid({ apiKey: 'SG.key', verifiedSenders: ['noreply@tidings.test'] }));
    const { send, message } = await engine(sendgridProvider(at(sendgrid.url)), { apiKey: 'SG.key', ...sender });
    expect(await message(await send('ada@example.test', {}, attachments))).toMatchObject({ status: 'sent' });
    const mail = sendgrid.accepted[0]!;
    expect(received(mail.files)).toEqual(SENT);
    expect(mail.attachments!.map((a) => a.disposition)).toEqual(['attachment', 'inline']);
  });

  it('Resend: attachments of filename, base64 content and content_type; the inline one with its content_id', async () => {
    const resend = await started(fakeResend({ apiKey: 're_key', verifiedDomains: ['tidings.test'] }));
    const { send, message } = await engine(resendProvider(at(resend.url)), { apiKey: 're_key', ...sender });
    expect(await message(await send('ada@example.test', {}, attachments))).toMatchObject({ status: 'sent' });
    expect(received(resend.accepted[0]!.files)).toEqual(SENT);
  });

  it('Postmark: Attachments of Name, base64 Content and ContentType; the inline one with ContentID cid:…', async () => {
    const postmark = await started(fakePostmark({ token: 'server-token', senderSignatures: ['noreply@tidings.test'] }));
    const { send, message } = await engine(postmarkProvider(at(postmark.url)), { apiKey: 'server-token', ...sender });
    expect(await message(await send('ada@example.test', {}, attachments))).toMatchObject({ status: 'sent' });
    const mail = postmark.accepted[0]!;
    expect(received(mail.files)).toEqual(SENT);
    expect(mail.Attachments![1]!.ContentID).toBe('cid:logo');
  });

  it('Mailgun: multipart/form-data with an attachment part and an inline part named by its Content-ID, the other fields as before; without files, still form-encoded', async () => {
    const mailgun = await started(fakeMailgun({ apiKey: 'key-123', domains: ['mg.tidings.test'] }));
    const { send, message } = await engine(mailgunProvider(at(mailgun.url)), { apiKey: 'key-123', domain: 'mg.tidings.test', from: 'noreply@mg.tidings.test', senderName: 'Tidings' });
    expect(await message(await send('ada@example.test', toAList, attachments))).toMatchObject({ status: 'sent' });
    expect(mailgun.calls[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const mail = mailgun.accepted[0]!;
    // Mailgun shows an inline file as cid:<its file name>, so the inline part is named by its cid.
    expect(received(mail.files)).toEqual([SENT[0], ['logo', 'image/png', PNG.toString('base64'), 'logo']]);
    expect(mail.fields).toMatchObject({ from: ['Billing <billing@tidings.test>'], to: ['ada@example.test', 'team@example.test', 'ops@example.test'], cc: ['boss@example.test'], subject: ['Welcome Ada'], text: ['Hello Ada'], html: [BARE_HTML] });
    await send();
    expect(mailgun.calls[1]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(mailgun.accepted[1]!.files).toEqual([]);
  });

  it('Amazon SES: Content.Raw, a MIME message with the files, sender, recipients (Bcc only in Destination), Reply-To, subject and both bodies', async () => {
    const ses = await started(fakeSes({ region: 'eu-west-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/EXAMPLE+key', verifiedIdentities: ['tidings.test'] }));
    const { send, message, trace } = await engine(sesProvider(at(ses.url)), { apiKey: 'AKIAEXAMPLE', secretKey: 'secret/EXAMPLE+key', region: 'eu-west-1', ...sender });
    const tx = await send('ada@example.test', toAList, attachments);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
    const mail = ses.accepted[0]!;
    expect(await trace(tx)).toContain(`as ${mail.MessageId}`);
    expect(mail.Content.Simple).toBeUndefined();
    expect(mail.Destination).toEqual({ ToAddresses: ['ada@example.test', 'team@example.test', 'ops@example.test'], CcAddresses: ['boss@example.test'], BccAddresses: ['audit@example.test'] });
    expect(received(mail.files)).toEqual(SENT);
    const raw = mail.raw!;
    expect(raw.from?.value).toEqual([{ name: 'Billing', address: 'billing@tidings.test' }]);
    expect(raw.to).toMatchObject({ value: [{ address: 'ada@example.test' }, { address: 'team@example.test' }, { address: 'ops@example.test' }] });
    expect(raw.cc).toMatchObject({ value: [{ address: 'boss@example.test' }] });
    expect(raw.headers.has('bcc')).toBe(false);
    expect(raw.replyTo).toMatchObject({ value: [{ address: 'help@tidings.test' }] });
    expect([raw.subject, raw.text?.trim(), raw.html]).toEqual(['Welcome Ada', 'Hello Ada', BARE_HTML]);
  });

  it('an email provider that does not declare attachments is not given the email: it is not sent, saying why', async () => {
    const lines: string[] = [];
    const plain = consoleProviders({ channels: ['email'], log: (line) => lines.push(line) })[0]!;
    expect(plain.attachments).toBeUndefined();
    const { send, message } = await engine(plain, {});
    expect(await message(await send('ada@example.test', {}, attachments))).toMatchObject({ status: 'warning', errorText: '"console" does not send attachments, and the trigger attaches 2 files' });
    expect(lines).toEqual([]);
  });
});
