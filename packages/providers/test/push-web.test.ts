/**
 * Web Push with VAPID through a local push service that plays the protocol (RFC 8030/8291/8292):
 * the VAPID JWT is verified against the application's public key, and each payload decrypted with
 * the browser subscription's own keys.
 */
import { createTidings, ProviderError, type Credentials } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import webpush from 'web-push';
import { describe, expect, it } from 'vitest';
import { webPushProvider } from '../src/index.js';
import { pushMessage } from './push-message.js';
import { webPushFake } from './services/push-web.js';
import { started } from './started.js';

const vapid = webpush.generateVAPIDKeys();
const credentials: Credentials = { apiKey: vapid.publicKey, secretKey: vapid.privateKey, from: 'mailto:ops@example.com' };
const allowLocal = { network: { allow: ['127.0.0.1'] } };

describe('web-push', () => {
  it('sends the step to every browser subscription: VAPID checked, the payload decrypted by the browser keys, a day to live', async () => {
    const service = await started(webPushFake(vapid.publicKey));
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [webPushProvider(allowLocal)] });
    await tidings.integrations.upsert({ name: 'Browser push', identifier: 'browser', providerId: 'web-push', channel: 'push', credentials, active: true, primary: true });
    await tidings.workflows.upsert({ name: 'p', triggers: [{ identifier: 'p' }], steps: [{ template: { type: 'push', title: 'Hi {{ subscriber.firstName }}', content: 'You have {{ payload.n }} new' } }] });
    const laptop = service.subscribe();
    const phone = service.subscribe();
    const { transactionId } = await tidings.trigger({ name: 'p', to: { subscriberId: 'ada', firstName: 'Ada', channels: [{ providerId: 'web-push', credentials: { deviceTokens: [laptop, phone] } }] }, payload: { n: 3 } });
    await tidings.runDue();
    expect(service.refused).toEqual([]);
    expect(service.delivered.map((d) => d.payload)).toEqual([
      { title: 'Hi Ada', body: 'You have 3 new', data: { n: 3 } },
      { title: 'Hi Ada', body: 'You have 3 new', data: { n: 3 } },
    ]);
    expect(service.delivered[0]).toMatchObject({ ttl: 86_400, claims: { aud: service.url, sub: 'mailto:ops@example.com' } });
    const [message] = await tidings.messages.byTransaction(transactionId!);
    expect(message).toMatchObject({ status: 'sent', providerId: 'web-push' });
  });

  it('a subscription the push service says is gone (410) is removed from the subscriber; the others still get it', async () => {
    const service = await started(webPushFake(vapid.publicKey));
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [webPushProvider(allowLocal)] });
    await tidings.integrations.upsert({ name: 'Browser push', providerId: 'web-push', channel: 'push', credentials, active: true, primary: true });
    await tidings.workflows.upsert({ name: 'p', triggers: [{ identifier: 'p' }], steps: [{ template: { type: 'push', content: 'ping' } }] });
    const old = service.subscribe();
    const current = service.subscribe();
    service.unsubscribe(old);
    await tidings.trigger({ name: 'p', to: { subscriberId: 'ada', channels: [{ providerId: 'web-push', credentials: { deviceTokens: [old, current] } }] } });
    await tidings.runDue();
    expect(service.delivered).toHaveLength(1);
    expect((await tidings.subscribers.get('ada'))!.channels[0]!.credentials.deviceTokens).toEqual([current]);
  });

  it('429 is retried after Retry-After; missing VAPID credentials and a token that is not a subscription fail for good, by name', async () => {
    const service = await started(webPushFake(vapid.publicKey));
    const provider = webPushProvider(allowLocal);
    service.throttle(1);
    const busy = await provider.send(pushMessage([service.subscribe()]), credentials).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(ProviderError);
    expect(busy).toMatchObject({ retryable: true, options: { status: 429, retryAfterMs: 1_000 } });
    await expect(provider.send(pushMessage([service.subscribe()]), credentials)).resolves.toMatchObject({ id: expect.stringContaining('/message/') });
    await expect(provider.send(pushMessage([service.subscribe()]), { apiKey: vapid.publicKey })).rejects.toMatchObject({ retryable: false, options: { code: 'missing_credentials' }, message: expect.stringContaining('credentials.secretKey') });
    await expect(provider.send(pushMessage(['not-a-subscription']), credentials)).rejects.toMatchObject({ retryable: false, options: { code: 'invalid_subscription', invalidTokens: ['not-a-subscription'] } });
  });

  it('a push service on a private address is refused without the network policy allowing it', async () => {
    const service = await started(webPushFake(vapid.publicKey));
    const error = await webPushProvider().send(pushMessage([service.subscribe()]), credentials).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(service.delivered).toEqual([]);
  });
});
