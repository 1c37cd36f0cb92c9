import { createServer as createH2cServer } from 'node:http2';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { ProviderError } from '@tidings/core';
import { afterEach, describe, expect, it } from 'vitest';
import { http2Session, serviceRequestHttp2 } from '../src/http2.js';
import { addressGuard, chatWebhookProvider, postJson, pushWebhookProvider } from '../src/index.js';
import { webhookServer } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listener(respond?: Parameters<typeof webhookServer>[0]) {
  const server = await webhookServer(respond);
  closers.push(server.close);
  return server;
}

const message = { messageId: 'm1', transactionId: 't1', channel: 'chat' as const, to: { subscriberId: 'ada' }, content: 'hi', payload: {}, overrides: {} };

async function refusal(run: Promise<unknown>): Promise<ProviderError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('webhook URLs: only public addresses by default', () => {
  it('a webhook on loopback is never contacted by default, and is when allowed', async () => {
    const server = await listener();
    const url = server.url('/internal');
    const error = await refusal(chatWebhookProvider().send({ ...message, to: { subscriberId: 'ada', webhookUrl: url } }, {}));
    expect(error).toMatchObject({ options: { retryable: false, code: 'address_refused' } });
    expect(server.received).toHaveLength(0);
    await chatWebhookProvider({ network: { allow: ['127.0.0.1'] } }).send({ ...message, to: { subscriberId: 'ada', webhookUrl: url } }, {});
    expect(server.received).toHaveLength(1);
  });

  it('a host name that resolves to loopback is refused on the resolved address (DNS cannot smuggle it in)', async () => {
    const server = await listener();
    const url = server.url('/x').replace('127.0.0.1', 'localhost');
    const error = await refusal(postJson(url, {}));
    expect(error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1) is not a public address/);
    expect(server.received).toHaveLength(0);
    // Allowing the host name (not the address) lets it through.
    await postJson(url, {}, { network: { allow: ['localhost', '::1'] } });
    expect(server.received).toHaveLength(1);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.8/hook',
    'http://192.168.1.1/',
    'http://172.20.0.5:8080/',
    'http://100.64.0.1/',
    'http://[::1]:9/',
    'http://[fe80::1]/',
    'http://[fd00::5]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0:9/',
  ])('%s is refused before any connection', async (url) => {
    const error = await refusal(pushWebhookProvider().send({ ...message, channel: 'push' }, { webhookUrl: url }));
    expect(error).toMatchObject({ options: { code: 'address_refused', retryable: false } });
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'gopher://example.com/', 'javascript:alert(1)'])('%s: only http and https', async (url) => {
    const error = await refusal(postJson(url, {}));
    expect(error.message).toMatch(/only http and https/);
  });

  it('redirects are not followed, and nothing of the far side’s answer is kept', async () => {
    const target = await listener();
    const redirecting = await listener(() => ({ status: 302, headers: { location: target.url('/secret') }, body: 'SECRET-INTERNAL-DATA' }));
    const error = await refusal(postJson(redirecting.url('/r'), {}, { network: { allow: ['127.0.0.1'] } }));
    expect(error.message).toBe(`127.0.0.1:${new URL(redirecting.url()).port} answered 302 (redirects are not followed)`);
    expect(target.received).toHaveLength(0);
    const failing = await listener(() => ({ status: 500, body: 'stack trace with secrets' }));
    const failed = await refusal(postJson(failing.url(), {}, { network: { allow: ['127.0.0.0/8'] } }));
    expect(failed.message).not.toContain('secrets');
    expect(failed.options).toMatchObject({ retryable: true, status: 500 });
  });

  it('the guard: public addresses pass, ranges and allow entries are honoured', () => {
    const guard = addressGuard({ allow: ['10.1.0.0/16', '192.168.5.5', 'hooks.internal'] });
    expect(guard.refusal('93.184.216.34')).toBeNull();
    expect(guard.refusal('2606:4700::1111')).toBeNull();
    expect(guard.refusal('10.1.2.3')).toBeNull();
    expect(guard.refusal('10.2.0.1')).toMatch(/not a public address/);
    expect(guard.refusal('192.168.5.5')).toBeNull();
    expect(guard.refusal('192.168.5.6')).toMatch(/not a public address/);
    expect(guard.hostAllowed('HOOKS.internal')).toBe(true);
  });
});

/** An h2c server on 127.0.0.1 answering every request with `body` (the request's own by default); it counts connections. */
async function h2cServer(body?: string) {
  let connections = 0;
  const server = createH2cServer();
  server.on('session', (session) => {
    connections++;
    closers.push(async () => session.destroy());
  });
  server.on('stream', (stream, headers) => {
    let received = '';
    stream.on('data', (chunk: Buffer) => (received += chunk.toString()));
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'x-path': String(headers[':path']) });
      stream.end(body ?? received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return { url: (path = '/x') => `http://127.0.0.1:${port}${path}`, connections: () => connections };
}

const allowLoopback = { network: { allow: ['127.0.0.1'] } };

describe('HTTP/2 requests: the same address guard', () => {
  it('reaches an allowed address and reads the answer', async () => {
    const server = await h2cServer();
    const answer = await serviceRequestHttp2({ url: server.url('/3/device/abc?x=1'), headers: { 'content-type': 'text/plain' }, body: 'hello' }, allowLoopback);
    expect(answer).toMatchObject({ status: 200, body: 'hello', headers: { 'x-path': '/3/device/abc?x=1' } });
    expect(Object.keys(answer.headers).some((name) => name.startsWith(':'))).toBe(false);
  });

  it('a host name that resolves to loopback is refused on the resolved address; allowing the host name lets it through', async () => {
    const server = await h2cServer();
    const url = server.url().replace('127.0.0.1', 'localhost');
    const error = await refusal(serviceRequestHttp2({ url, body: '{}' }));
    expect(error).toMatchObject({ options: { retryable: false, code: 'address_refused' } });
    expect(error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1) is not a public address/);
    expect(server.connections()).toBe(0);
    await expect(serviceRequestHttp2({ url, body: '{}' }, { network: { allow: ['localhost'] } })).resolves.toMatchObject({ status: 200 });
    expect(server.connections()).toBe(1);
  });

  it.each(['http://127.0.0.1:9/', 'http://169.254.169.254/latest/meta-data/', 'https://10.0.0.8/3/device/x', 'http://[::1]:9/', 'http://[::ffff:127.0.0.1]/'])(
    '%s (an IP literal) is refused before any connection',
    async (url) => {
      const error = await refusal(serviceRequestHttp2({ url }));
      expect(error).toMatchObject({ options: { retryable: false, code: 'address_refused' } });
      expect(() => http2Session(url)).toThrow(/not a public address/);
    },
  );

  it.each(['file:///etc/passwd', 'ftp://example.com/x'])('%s: only http and https', async (url) => {
    expect((await refusal(serviceRequestHttp2({ url }))).message).toMatch(/only http and https/);
  });

  it('one session sends many requests over one connection', async () => {
    const server = await h2cServer();
    const session = http2Session(server.url('/'), allowLoopback);
    const answers = await Promise.all(['a', 'b', 'c'].map((name) => session.request({ url: server.url(`/${name}`), body: name })));
    session.close();
    expect(answers.map((a) => a.body)).toEqual(['a', 'b', 'c']);
    expect(server.connections()).toBe(1);
    await expect(session.request({ url: server.url('/d') })).rejects.toMatchObject({ options: { retryable: true, code: 'network_error' } });
  });

  it('reads at most 64 KB of the answer', async () => {
    const server = await h2cServer('x'.repeat(1024 * 1024));
    const answer = await serviceRequestHttp2({ url: server.url() }, allowLoopback);
    expect(answer.body).toHaveLength(64 * 1024);
  });

  it('the timeout covers connecting: a TLS handshake that never ends is a retryable timeout', async () => {
    let hungUp!: () => void;
    const clientHungUp = new Promise<void>((resolve) => (hungUp = resolve));
    const silent = createTcpServer((socket) => socket.resume().on('close', hungUp));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => silent.close(resolve)));
    const { port } = silent.address() as AddressInfo;
    const error = await refusal(serviceRequestHttp2({ url: `https://127.0.0.1:${port}/3/device/x` }, { ...allowLoopback, timeoutMs: 200 }));
    expect(error).toMatchObject({ message: `127.0.0.1:${port} did not answer within 200 ms`, options: { retryable: true, code: 'timeout' } });
    // The connection is not left hanging.
    await clientHungUp;
  });

  it('a connection refused is a retryable network error', async () => {
    const error = await refusal(serviceRequestHttp2({ url: 'http://127.0.0.1:9/' }, allowLoopback));
    expect(error).toMatchObject({ options: { retryable: true, code: 'network_error' } });
  });
});
