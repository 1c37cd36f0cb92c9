import { createTidings, type Message, type TidingsOptions, type WorkflowInput } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { chatWebhookProvider, consoleProviders, discordProvider, msTeamsProvider, pushWebhookProvider, slackProvider, smtpProvider, verifyStandardWebhook } from '../src/index.js';
import { smtpServer, webhookServer } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const local = { network: { allow: ['127.0.0.1'] } };

async function engine(options: Partial<TidingsOptions> = {}) {
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({
    storage: memoryStorage(),
    clock,
    // The local test servers listen on loopback, which webhook providers refuse unless allowed.
    providers: [chatWebhookProvider(local), slackProvider(local), discordProvider(local), msTeamsProvider(local), pushWebhookProvider(local), smtpProvider({ timeoutMs: 3_000 })],
    ...options,
  });
  return { tidings, clock };
}

const oneStep = (identifier: string, template: WorkflowInput['steps'] extends (infer S)[] | undefined ? S extends { template: infer T } ? T : never : never, extra: object = {}): WorkflowInput => ({
  name: identifier,
  triggers: [{ identifier }],
  steps: [{ template, ...extra }],
});

async function webhook(respond?: Parameters<typeof webhookServer>[0]) {
  const server = await webhookServer(respond);
  closers.push(server.close);
  return server;
}

describe('chat providers against a real local webhook', () => {
  it.each([
    ['chat-webhook', (body: any) => expect(body).toMatchObject({ content: 'Build 42 failed', subscriberId: 'dev', payload: { build: 42 } })],
    ['slack', (body: any) => expect(body).toEqual({ text: 'Build 42 failed', channel: '#ci' })],
    ['discord', (body: any) => expect(body).toEqual({ content: 'Build 42 failed' })],
    ['msteams', (body: any) => expect(body).toMatchObject({ '@type': 'MessageCard', text: 'Build 42 failed' })],
  ] as const)('%s: posts to the subscriber’s webhook and the message is sent', async (providerId, checkBody) => {
    const server = await webhook();
    const { tidings } = await engine();
    await tidings.integrations.upsert({ name: providerId, identifier: `${providerId}-main`, providerId, channel: 'chat' });
    await tidings.workflows.upsert(oneStep('ci', { type: 'chat', content: 'Build {{ payload.build }} failed' }));
    const result = await tidings.trigger({
      name: 'ci',
      to: { subscriberId: 'dev', channels: [{ providerId: providerId as 'slack', credentials: { webhookUrl: server.url(`/${providerId}`), channel: '#ci' } }] },
      payload: { build: 42 },
    });
    await tidings.runDue();
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.path).toBe(`/${providerId}`);
    checkBody(server.received[0]!.json);
    const [message] = await tidings.messages.byTransaction(result.transactionId!);
    expect(message).toMatchObject({ channel: 'chat', status: 'sent', providerId, directWebhookUrl: server.url(`/${providerId}`), deliveredAt: ['2026-06-01T12:00:00.000Z'] });
  });

  it('a subscriber without a webhook URL gets a warning message, and nothing is posted', async () => {
    const server = await webhook();
    const { tidings } = await engine();
    await tidings.integrations.upsert({ name: 'slack', providerId: 'slack', channel: 'chat' });
    await tidings.workflows.upsert(oneStep('ci', { type: 'chat', content: 'x' }));
    const result = await tidings.trigger({ name: 'ci', to: 'nobody' });
    await tidings.runDue();
    expect(server.received).toHaveLength(0);
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'warning', errorText: 'the subscriber has no slack webhook URL' });
  });
});

describe('retries and failures', () => {
  it('5xx answers are retried with backoff until the provider accepts', async () => {
    const server = await webhook((_req, n) => (n <= 2 ? { status: 503, body: 'busy' } : { status: 200 }));
    const { tidings, clock } = await engine();
    await tidings.integrations.upsert({ name: 'hook', providerId: 'chat-webhook', channel: 'chat', credentials: { webhookUrl: server.url() } });
    await tidings.workflows.upsert(oneStep('ci', { type: 'chat', content: 'retry me' }));
    const result = await tidings.trigger({ name: 'ci', to: 'dev' });
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(result.transactionId!)).toEqual([]);
    expect((await tidings.explain(result.transactionId!))[0]!.entries[0]).toMatchObject({ decision: 'failed', reason: expect.stringContaining('503') });
    clock.advance(1_000);
    await tidings.runDue();
    clock.advance(2_000);
    await tidings.runDue();
    expect(server.received).toHaveLength(3);
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'sent' });
  });

  it('after the last attempt the message is error with errorId and errorText, and message.failed is emitted', async () => {
    const server = await webhook(() => ({ status: 500, body: 'down' }));
    const { tidings, clock } = await engine({ maxAttempts: 2 });
    const failed: { message: Message; error: string }[] = [];
    tidings.events.on('message.failed', (event) => failed.push(event));
    await tidings.integrations.upsert({ name: 'hook', providerId: 'chat-webhook', channel: 'chat', credentials: { webhookUrl: server.url() } });
    await tidings.workflows.upsert(oneStep('ci', { type: 'chat', content: 'x' }));
    const result = await tidings.trigger({ name: 'ci', to: 'dev' });
    await tidings.runDue();
    clock.advance(60_000);
    await tidings.runDue();
    const [message] = await tidings.messages.byTransaction(result.transactionId!);
    expect(message).toMatchObject({ status: 'error', errorId: 'http_500', errorText: expect.stringContaining('500') });
    expect(failed).toHaveLength(1);
    expect(server.received).toHaveLength(2);
  });

  it('a 4xx answer is permanent: error at once, and shouldStopOnFail stops the rest of the walk', async () => {
    const server = await webhook(() => ({ status: 404, body: 'no such hook' }));
    const { tidings } = await engine();
    await tidings.integrations.upsert({ name: 'hook', providerId: 'chat-webhook', channel: 'chat', credentials: { webhookUrl: server.url() } });
    await tidings.workflows.upsert({
      name: 'stop',
      triggers: [{ identifier: 'stop' }],
      steps: [{ template: { type: 'chat', content: 'first' }, shouldStopOnFail: true }, { template: { type: 'in_app', content: 'never' } }],
    });
    const result = await tidings.trigger({ name: 'stop', to: 'dev' });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(result.transactionId!)).map((m) => [m.channel, m.status, m.errorId])).toEqual([['chat', 'error', 'http_404']]);
    expect(await tidings.runDue()).toBe(0);
  });

  it('a provider that does not answer within providerTimeoutMs: the outcome is unknown (a webhook takes no idempotency key), and the step waits an hour for its one more try', async () => {
    const slow = await webhook(() => 'hang');
    const { tidings } = await engine({ providerTimeoutMs: 300 });
    await tidings.integrations.upsert({ name: 'hook', providerId: 'chat-webhook', channel: 'chat' });
    await tidings.workflows.upsert(oneStep('ci', { type: 'chat', content: 'x' }));
    const result = await tidings.trigger({ name: 'ci', to: { subscriberId: 's0', channels: [{ providerId: 'chat-webhook', credentials: { webhookUrl: slow.url() } }] } });
    await tidings.runDue();
    expect((await tidings.explain(result.transactionId!, 's0'))[0]!.entries[0]).toMatchObject({
      decision: 'held',
      reason: 'outcome unknown: the provider did not answer within 300 ms; "chat-webhook" takes no idempotency key, so it may have sent the message; it is sent again at 2026-06-01T13:00:00.000Z',
    });
    expect((await tidings.pending()).jobs).toMatchObject([{ runAt: '2026-06-01T13:00:00.000Z', lastError: 'the provider did not answer within 300 ms' }]);
    expect(await tidings.messages.byTransaction(result.transactionId!)).toMatchObject([{ status: 'sent', outcome: 'unknown' }]);
  });

  it('a provider that never answers never holds up the other subscribers of the batch, and is retried', async () => {
    const slow = await webhook(() => 'hang');
    const fast = await webhook();
    const { tidings } = await engine({ providerTimeoutMs: 60_000 });
    await tidings.integrations.upsert({ name: 'hook', providerId: 'chat-webhook', channel: 'chat' });
    await tidings.workflows.upsert(oneStep('ci', { type: 'chat', content: 'x' }));
    const to = Array.from({ length: 20 }, (_, i) => ({ subscriberId: `s${i}`, channels: [{ providerId: 'chat-webhook' as const, credentials: { webhookUrl: (i === 0 ? slow : fast).url() } }] }));
    const result = await tidings.trigger({ name: 'ci', to });
    let ran = false;
    const running = tidings.runDue().then(() => (ran = true));
    // Every other subscriber is served while s0's call still hangs.
    await expect.poll(() => fast.received.length, { timeout: 30_000 }).toBe(19);
    expect(slow.received).toHaveLength(1);
    expect(ran).toBe(false);
    await slow.close();
    await running;
    expect(await tidings.messages.byTransaction(result.transactionId!)).toHaveLength(19);
    expect((await tidings.explain(result.transactionId!, 's0'))[0]!.entries[0]).toMatchObject({ decision: 'failed', reason: expect.stringContaining('will retry') });
  });
});

describe('push webhook', () => {
  it('posts title, content and device tokens to the integration URL, signed with its secret', async () => {
    const server = await webhook();
    const { tidings } = await engine();
    await tidings.integrations.upsert({ name: 'push', providerId: 'push-webhook', channel: 'push', credentials: { webhookUrl: server.url('/push'), secretKey: 's3cret' } });
    await tidings.workflows.upsert(oneStep('p', { type: 'push', title: 'Hi {{ subscriber.firstName }}', content: 'You have {{ payload.n }} new' }));
    const result = await tidings.trigger({ name: 'p', to: { subscriberId: 'u', firstName: 'Ada', channels: [{ providerId: 'push-webhook', credentials: { deviceTokens: ['tok-1', 'tok-2'] } }] }, payload: { n: 3 } });
    await tidings.runDue();
    const [request] = server.received;
    expect(request!.json).toMatchObject({ title: 'Hi Ada', content: 'You have 3 new', deviceTokens: ['tok-1', 'tok-2'], subscriberId: 'u' });
    // Standard Webhooks: the receiver verifies with whsec_ + the secret's base64; a replay later than five minutes is refused.
    const secret = `whsec_${Buffer.from('s3cret').toString('base64')}`;
    const headers = request!.headers as Record<string, string>;
    expect(verifyStandardWebhook(secret, headers, request!.body)).toMatchObject({ id: (await tidings.messages.byTransaction(result.transactionId!))[0]!._id });
    expect(() => verifyStandardWebhook(secret, headers, request!.body.replace('Ada', 'Eve'))).toThrow();
    expect(() => verifyStandardWebhook(secret, headers, request!.body, { now: Date.now() + 10 * 60_000 })).toThrow();
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'sent', deviceTokens: ['tok-1', 'tok-2'], title: 'Hi Ada' });
  });

  it('a code workflow push step’s extra members go in the body as data', async () => {
    const server = await webhook();
    await pushWebhookProvider(local).send({ messageId: 'm-1', transactionId: 't-1', channel: 'push', to: { subscriberId: 'u', deviceTokens: ['tok-1'] }, title: 'Hi', content: 'Hello', payload: {}, overrides: {}, data: { badge: 1, data: { postId: 'p1' } } }, { webhookUrl: server.url('/push') });
    expect(server.received[0]!.json).toMatchObject({ title: 'Hi', content: 'Hello', data: { badge: 1, data: { postId: 'p1' } } });
  });
});

describe('SMTP against a real local server', () => {
  it('sends subject, HTML and text parts rendered from email blocks, with variables escaped', async () => {
    const smtp = await smtpServer();
    closers.push(smtp.close);
    const { tidings } = await engine();
    await tidings.integrations.upsert({ name: 'smtp', providerId: 'nodemailer', channel: 'email', credentials: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@tidings.test', senderName: 'Tidings', ignoreTls: true } });
    await tidings.workflows.upsert(
      oneStep('welcome', {
        type: 'email',
        subject: 'Welcome {{ subscriber.firstName }}',
        content: [
          { type: 'text', content: 'Hello <b>{{ payload.name }}</b>', styles: { textAlign: 'center' } },
          { type: 'button', content: 'Open', url: 'https://app.test/{{ payload.id }}' },
        ],
      }),
    );
    const result = await tidings.trigger({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.test' }, payload: { name: '<script>x</script>', id: 7 } });
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail.to).toEqual(['ada@example.test']);
    expect(mail.from).toBe('noreply@tidings.test');
    expect(mail.raw).toContain('Subject: Welcome Ada');
    expect(mail.raw).toContain('&lt;script&gt;');
    expect(mail.raw).not.toContain('<b><script>');
    expect(mail.raw).toContain('https://app.test/7');
    expect(mail.raw).toMatch(/text\/plain[\s\S]*Hello/);
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'sent', providerId: 'nodemailer', email: 'ada@example.test' });
  });

  it('overrides.email: to, cc and bcc all reach the server (Bcc not in the headers), from, senderName and Reply-To as given', async () => {
    const smtp = await smtpServer();
    closers.push(smtp.close);
    const { tidings } = await engine();
    await tidings.integrations.upsert({ name: 'smtp', providerId: 'nodemailer', channel: 'email', credentials: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@tidings.test', senderName: 'Tidings', ignoreTls: true } });
    await tidings.workflows.upsert(oneStep('invoice', { type: 'email', subject: 'Invoice', content: 'Attached' }));
    const result = await tidings.trigger({
      name: 'invoice',
      to: { subscriberId: 'ada', email: 'ada@example.test' },
      overrides: {
        email: { to: ['team@example.test', 'ops@example.test'], cc: ['boss@example.test'], bcc: ['audit@example.test'], from: 'billing@tidings.test', senderName: 'Billing', replyTo: 'help@tidings.test' },
      },
    });
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail.from).toBe('billing@tidings.test');
    expect(mail.to).toEqual(['ada@example.test', 'team@example.test', 'ops@example.test', 'boss@example.test', 'audit@example.test']);
    const headers = mail.raw.split(/\r?\n\r?\n/)[0]!;
    expect(headers).toMatch(/^From: Billing <billing@tidings\.test>$/m);
    expect(headers).toMatch(/^To: ada@example\.test, team@example\.test, ops@example\.test$/m);
    expect(headers).toMatch(/^Cc: boss@example\.test$/m);
    expect(headers).toMatch(/^Reply-To: help@tidings\.test$/m);
    expect(headers).not.toMatch(/^Bcc:/im);
    expect(mail.raw).not.toContain('audit@example.test');
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'sent', email: 'ada@example.test' });
  });

  it('a 5xx SMTP reply is a permanent error; a 4xx reply is retried', async () => {
    const smtp = await smtpServer((n) => (n === 1 ? { code: 451, message: 'try later' } : n === 2 ? { code: 550, message: 'no such user' } : null));
    closers.push(smtp.close);
    const { tidings, clock } = await engine();
    await tidings.integrations.upsert({ name: 'smtp', providerId: 'nodemailer', channel: 'email', credentials: { host: '127.0.0.1', port: String(smtp.port), ignoreTls: true } });
    await tidings.workflows.upsert(oneStep('m', { type: 'email', subject: 's', content: 'c' }));
    const result = await tidings.trigger({ name: 'm', to: { subscriberId: 'a', email: 'a@example.test' } });
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(result.transactionId!)).toEqual([]);
    clock.advance(1_000);
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(result.transactionId!))[0]).toMatchObject({ status: 'error', errorText: expect.stringContaining('550') });
  });
});

describe('console', () => {
  it('prints one line per message on each channel', async () => {
    const lines: string[] = [];
    const tidings = createTidings({ storage: memoryStorage(), providers: consoleProviders({ log: (l) => lines.push(l) }) });
    await tidings.integrations.upsert({ name: 'dev', providerId: 'console', channel: 'sms' });
    await tidings.workflows.upsert(oneStep('s', { type: 'sms', content: 'Code {{ payload.code }}' }));
    await tidings.trigger({ name: 's', to: { subscriberId: 'u', phone: '+15550100' }, payload: { code: 1234 } });
    await tidings.runDue();
    expect(lines).toEqual(['[tidings sms] to +15550100: Code 1234']);
  });
});
