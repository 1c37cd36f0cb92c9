import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { apnsProvider } from '../src/push/apns.js';

/**
 * Apple's hosts, without the network: the resolver answers Apple's two host names with a loopback
 * address, which the address guard refuses, naming the host it was about to reach. No connection
 * is made and no DNS query leaves the machine.
 */
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns')>();
  const apple = new Set(['api.push.apple.com', 'api.sandbox.push.apple.com']);
  const lookup = (hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    if (!apple.has(hostname)) return dns.lookup(hostname, options as never, callback as never);
    callback(null, [{ address: '127.0.0.1', family: 4 }]);
  };
  return { ...dns, default: { ...dns, lookup }, lookup };
});

describe('apns hosts', () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const credentials = { secretKey: key, apiKey: 'KEY1234567', projectName: 'TEAM123456', applicationId: 'dev.tidings.app' };
  const message = { messageId: 'm1', transactionId: 't1', channel: 'push' as const, to: { subscriberId: 'ada', deviceTokens: ['a'.repeat(64)] }, title: 'Hi', content: 'Hello', payload: {}, overrides: {} };

  it.each([
    [{ secure: true }, 'api.push.apple.com'],
    [{ secure: false }, 'api.sandbox.push.apple.com'],
    [{}, 'api.sandbox.push.apple.com'],
  ])('%o sends to %s', async (secure, host) => {
    await expect(apnsProvider().send(message, { ...credentials, ...secure })).rejects.toMatchObject({
      message: `refused to connect: ${host} resolves to 127.0.0.1 is not a public address (allow it with the provider's network.allow option)`,
      options: { retryable: false, code: 'address_refused' },
    });
  });
});
