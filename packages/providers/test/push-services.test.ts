import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createTidings, type Credentials, type Provider } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it, vi } from 'vitest';
import { apnsProvider } from '../src/push/apns.js';
import { expoProvider } from '../src/push/expo.js';
import { fcmProvider } from '../src/push/fcm.js';
import { oneSignalProvider } from '../src/push/one-signal.js';
import { apnsFake, type ApnsFakeOptions } from './services/push-apns.js';
import { expoFake } from './services/push-expo.js';
import { fcmFake, GOOGLE_TOKEN_URI } from './services/push-fcm.js';
import { oneSignalFake } from './services/push-one-signal.js';
import { local, started } from './started.js';
import { pushMessage } from './push-message.js';

/** An engine with one push integration served by `provider`, and a push workflow. */
async function engine(provider: Provider, credentials: Credentials) {
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, providers: [provider] });
  await tidings.integrations.upsert({ name: provider.id, providerId: provider.id, channel: 'push', credentials, active: true, primary: true });
  await tidings.workflows.upsert({ name: 'p', triggers: [{ identifier: 'p' }], steps: [{ template: { type: 'push', title: 'Hi {{ subscriber.firstName }}', content: 'You have {{ payload.n }} new' } }] });
  /** Triggers the workflow for a subscriber with these device tokens, runs what is due, and returns the transaction. */
  const push = async (deviceTokens: string[]) => {
    const result = await tidings.trigger({
      name: 'p',
      to: { subscriberId: 'ada', firstName: 'Ada', channels: [{ providerId: provider.id as 'expo', credentials: { deviceTokens } }] },
      payload: { n: 3 },
    });
    await tidings.runDue();
    return result.transactionId!;
  };
  const message = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId))[0];
  const trace = async (transactionId: string) => JSON.stringify(await tidings.explain(transactionId));
  /** The device tokens the subscriber has now. */
  const tokens = async () => (await tidings.subscribers.get('ada'))?.channels.find((c) => c.providerId === provider.id)?.credentials.deviceTokens;
  return { tidings, clock, push, message, trace, tokens };
}

describe('expo', () => {
  it('posts one message per device token with the access token; the message is sent under the ticket id', async () => {
    const expo = await started(expoFake({ accessToken: 'expo-access', registered: ['ExponentPushToken[a]', 'ExponentPushToken[b]'] }));
    const { push, message, trace } = await engine(expoProvider(local(expo.url)), { apiKey: 'expo-access' });
    const tx = await push(['ExponentPushToken[a]', 'ExponentPushToken[b]']);
    expect(expo.calls).toHaveLength(1);
    expect(expo.calls[0]!.headers['content-type']).toBe('application/json');
    expect(expo.calls[0]!.json).toEqual([
      { to: 'ExponentPushToken[a]', title: 'Hi Ada', body: 'You have 3 new', data: { n: 3 } },
      { to: 'ExponentPushToken[b]', title: 'Hi Ada', body: 'You have 3 new', data: { n: 3 } },
    ]);
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'expo', deviceTokens: ['ExponentPushToken[a]', 'ExponentPushToken[b]'] });
    expect(await trace(tx)).toContain(`as ${expo.tickets[0]!.id}`);
  });

  it('sends without an Authorization header when the integration has no access token', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[a]'] }));
    const { push, message } = await engine(expoProvider(local(expo.url)), {});
    const tx = await push(['ExponentPushToken[a]']);
    expect(expo.calls[0]!.headers.authorization).toBeUndefined();
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });

  it('a message some devices took is sent, and the DeviceNotRegistered tokens are reported', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[live]'] }));
    const provider = expoProvider(local(expo.url));
    const result = (await provider.send(pushMessage(['ExponentPushToken[gone]', 'ExponentPushToken[live]']), {}));
    expect(result).toEqual({ id: expo.tickets[0]!.id, invalidTokens: ['ExponentPushToken[gone]'] });

    const { push, message } = await engine(provider, {});
    expect(await message(await push(['ExponentPushToken[gone]', 'ExponentPushToken[live]']))).toMatchObject({ status: 'sent' });
  });

  it('through the engine, a DeviceNotRegistered token leaves the subscriber’s channel settings with the message’s commit', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[live]'] }));
    const { push, message, tokens } = await engine(expoProvider(local(expo.url)), {});
    expect(await message(await push(['ExponentPushToken[gone]', 'ExponentPushToken[live]']))).toMatchObject({ status: 'sent' });
    expect(await tokens()).toEqual(['ExponentPushToken[live]']);
  });

  it('when every device refused, the message is error with Expo’s code, and the dead tokens ride on the error', async () => {
    const expo = await started(expoFake({ registered: [] }));
    const provider = expoProvider(local(expo.url));
    await expect(provider.send(pushMessage(['ExponentPushToken[x]', 'ExponentPushToken[y]']), {})).rejects.toMatchObject({
      options: { retryable: false, code: 'DeviceNotRegistered', invalidTokens: ['ExponentPushToken[x]', 'ExponentPushToken[y]'] },
    });
    const { push, message } = await engine(provider, {});
    expect(await message(await push(['ExponentPushToken[x]']))).toMatchObject({ status: 'error', errorId: 'DeviceNotRegistered' });
  });

  it('a bad access token is a final error with Expo’s code', async () => {
    const expo = await started(expoFake({ accessToken: 'right', registered: ['ExponentPushToken[a]'] }));
    const { push, message } = await engine(expoProvider(local(expo.url)), { apiKey: 'wrong' });
    expect(await message(await push(['ExponentPushToken[a]']))).toMatchObject({ status: 'error', errorId: 'invalid_token', errorText: 'expo answered 401 (invalid_token)' });
    expect(expo.calls).toHaveLength(1);
  });

  it('an outage (503) is retried on the next run after the backoff, and the message is then sent', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[a]'], down: 1 }));
    const { tidings, clock, push, message } = await engine(expoProvider(local(expo.url)), {});
    const tx = await push(['ExponentPushToken[a]']);
    expect(await message(tx)).toBeUndefined();
    expect(await tidings.explain(tx)).toMatchObject([{ entries: [expect.objectContaining({ reason: expect.stringContaining('expo answered 503 (INTERNAL_SERVER_ERROR); will retry') })] }]);
    clock.advance(1_000);
    await tidings.runDue();
    expect(expo.calls).toHaveLength(2);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });

  it('sends at most 100 messages per request', async () => {
    const tokens = Array.from({ length: 150 }, (_, i) => `ExponentPushToken[${i}]`);
    const expo = await started(expoFake({ registered: tokens }));
    const result = await expoProvider(local(expo.url)).send(pushMessage(tokens), {});
    expect(expo.calls.map((c) => c.json.length)).toEqual([100, 50]);
    expect(result).toEqual({ id: expo.tickets[0]!.id });
  });

  it('the integration’s baseUrl wins over the provider’s', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[a]'] }));
    const provider = expoProvider({ baseUrl: 'http://127.0.0.1:9', network: { allow: ['127.0.0.1'] } });
    await expect(provider.send(pushMessage(['ExponentPushToken[a]']), { baseUrl: expo.url })).resolves.toEqual({ id: expect.any(String) });
    expect(expo.calls).toHaveLength(1);
  });
});

describe('one-signal', () => {
  const app = { appId: '202d4f61-1ca9-42df-9d36-bb17d8123abc', apiKey: 'rest-api-key' };

  it('posts one notification for all the device tokens with Basic auth; the message is sent under its id', async () => {
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: ['player-1', 'player-2'] }));
    const { push, message, trace } = await engine(oneSignalProvider(local(oneSignal.url)), { applicationId: app.appId, apiKey: app.apiKey });
    const tx = await push(['player-1', 'player-2']);
    expect(oneSignal.calls).toHaveLength(1);
    expect(oneSignal.calls[0]!.headers.authorization).toBe('Basic rest-api-key');
    // The engine's idempotency key for the message (a UUID) goes as OneSignal's idempotency_key.
    const idempotencyKey = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(oneSignal.calls[0]!.json).toEqual({ app_id: app.appId, include_player_ids: ['player-1', 'player-2'], headings: { en: 'Hi Ada' }, contents: { en: 'You have 3 new' }, data: { n: 3 }, idempotency_key: idempotencyKey });
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'one-signal' });
    expect(await trace(tx)).toContain(`as ${oneSignal.notifications[0]}`);
  });

  it('an os_v2_ API key goes with the Key scheme', async () => {
    const oneSignal = await started(oneSignalFake({ appId: app.appId, apiKey: 'os_v2_app_abc', subscribed: ['player-1'] }));
    await oneSignalProvider(local(oneSignal.url)).send(pushMessage(['player-1']), { applicationId: app.appId, apiKey: 'os_v2_app_abc' });
    expect(oneSignal.calls[0]!.headers.authorization).toBe('Key os_v2_app_abc');
  });

  it('reports the invalid player ids of a notification that went out', async () => {
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: ['player-1'] }));
    const result = (await oneSignalProvider(local(oneSignal.url)).send(pushMessage(['player-1', 'player-old']), { applicationId: app.appId, apiKey: app.apiKey }));
    expect(result).toEqual({ id: oneSignal.notifications[0], invalidTokens: ['player-old'] });
  });

  it('a notification no player was subscribed to is a final error', async () => {
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: [] }));
    const { push, message } = await engine(oneSignalProvider(local(oneSignal.url)), { applicationId: app.appId, apiKey: app.apiKey });
    expect(await message(await push(['player-1']))).toMatchObject({ status: 'error', errorId: 'no_subscribed_players' });
  });

  it('a wrong API key is a final error (403)', async () => {
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: ['player-1'] }));
    const { push, message } = await engine(oneSignalProvider(local(oneSignal.url)), { applicationId: app.appId, apiKey: 'stolen' });
    const sent = await message(await push(['player-1']));
    expect(sent).toMatchObject({ status: 'error', errorId: 'http_403', errorText: 'one-signal answered 403' });
  });

  it('an integration without its applicationId fails at once, naming the credential', async () => {
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: ['player-1'] }));
    const { push, message } = await engine(oneSignalProvider(local(oneSignal.url)), { apiKey: app.apiKey });
    expect(await message(await push(['player-1']))).toMatchObject({ status: 'error', errorId: 'missing_credentials', errorText: 'one-signal: the integration has no applicationId credential' });
    expect(oneSignal.calls).toHaveLength(0);
  });
});

describe('fcm', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account = { projectId: 'tidings-test', clientEmail: 'push@tidings-test.iam.gserviceaccount.com', keyId: 'key-1' };
  /** A service account JSON file as the Firebase console downloads it. */
  const serviceAccount = (privateKey = keys.privateKey) =>
    JSON.stringify({
      type: 'service_account',
      project_id: account.projectId,
      private_key_id: account.keyId,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: account.clientEmail,
      client_id: '100000000000000000001',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: GOOGLE_TOKEN_URI,
    });
  const fake = (extra: { registered: string[]; expiresIn?: number; overQuota?: number }) => started(fcmFake({ ...account, publicKey: keys.publicKey, ...extra }));

  it('gets an access token with a signed JWT, then sends one request per device token; the message is sent under its name', async () => {
    const fcm = await fake({ registered: ['fcm-a', 'fcm-b'] });
    const { push, message, trace } = await engine(fcmProvider(local(fcm.url)), { serviceAccount: serviceAccount() });
    const tx = await push(['fcm-a', 'fcm-b']);
    expect(fcm.assertions).toHaveLength(1);
    expect(fcm.assertions[0]!.header).toMatchObject({ alg: 'RS256', kid: 'key-1' });
    expect(fcm.assertions[0]!.claims).toMatchObject({ iss: account.clientEmail, aud: GOOGLE_TOKEN_URI, scope: 'https://www.googleapis.com/auth/firebase.messaging' });
    expect(fcm.sent.map((s) => s.message)).toEqual([
      { token: 'fcm-a', notification: { title: 'Hi Ada', body: 'You have 3 new' } },
      { token: 'fcm-b', notification: { title: 'Hi Ada', body: 'You have 3 new' } },
    ]);
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'fcm' });
    expect(await trace(tx)).toContain('as projects/tidings-test/messages/0:1%');
  });

  it('keeps the access token for the next messages, and renews one that is about to expire', async () => {
    const fcm = await fake({ registered: ['fcm-a'] });
    const provider = fcmProvider(local(fcm.url));
    const credentials = { serviceAccount: serviceAccount() };
    await provider.send(pushMessage(['fcm-a']), credentials);
    await provider.send(pushMessage(['fcm-a']), credentials);
    expect(fcm.assertions).toHaveLength(1);
    expect(new Set(fcm.sent.map((s) => s.authorization)).size).toBe(1);

    const shortLived = await fake({ registered: ['fcm-a'], expiresIn: 60 });
    const renewing = fcmProvider(local(shortLived.url));
    await renewing.send(pushMessage(['fcm-a']), credentials);
    await renewing.send(pushMessage(['fcm-a']), credentials);
    expect(shortLived.assertions).toHaveLength(2);
  });

  it('an access token FCM no longer takes is renewed once and the send goes through', async () => {
    const fcm = await fake({ registered: ['fcm-a'] });
    const provider = fcmProvider(local(fcm.url));
    const credentials = { serviceAccount: serviceAccount() };
    await provider.send(pushMessage(['fcm-a']), credentials);
    fcm.revokeTokens();
    await expect(provider.send(pushMessage(['fcm-a']), credentials)).resolves.toMatchObject({ id: expect.stringContaining('projects/tidings-test/messages/') });
    expect(fcm.assertions).toHaveLength(2);
  });

  it('reports UNREGISTERED tokens; when every token is unregistered the message is error with that code', async () => {
    const fcm = await fake({ registered: ['fcm-live'] });
    const provider = fcmProvider(local(fcm.url));
    const credentials = { serviceAccount: serviceAccount() };
    const result = (await provider.send(pushMessage(['fcm-gone', 'fcm-live']), credentials));
    expect(result).toEqual({ id: expect.stringContaining('projects/tidings-test/messages/'), invalidTokens: ['fcm-gone'] });
    await expect(provider.send(pushMessage(['fcm-gone']), credentials)).rejects.toMatchObject({ options: { retryable: false, status: 404, code: 'UNREGISTERED', invalidTokens: ['fcm-gone'] } });

    const { push, message } = await engine(provider, credentials);
    expect(await message(await push(['fcm-gone', 'fcm-old']))).toMatchObject({ status: 'error', errorId: 'UNREGISTERED', errorText: 'fcm answered 404 (UNREGISTERED)' });
  });

  it('through the engine, an UNREGISTERED token leaves the subscriber’s channel settings with the message’s commit', async () => {
    const fcm = await fake({ registered: ['fcm-live'] });
    const { push, message, tokens } = await engine(fcmProvider(local(fcm.url)), { serviceAccount: serviceAccount() });
    expect(await message(await push(['fcm-gone', 'fcm-live']))).toMatchObject({ status: 'sent' });
    expect(await tokens()).toEqual(['fcm-live']);
  });

  it('payload values become string data in a data message (overrides.fcm.type = data)', async () => {
    const fcm = await fake({ registered: ['fcm-a'] });
    const { tidings, message } = await engine(fcmProvider(local(fcm.url)), { serviceAccount: serviceAccount() });
    const result = await tidings.trigger({
      name: 'p',
      to: { subscriberId: 'ada', firstName: 'Ada', channels: [{ providerId: 'fcm', credentials: { deviceTokens: ['fcm-a'] } }] },
      payload: { n: 3, order: { id: 7 } },
      overrides: { fcm: { type: 'data', android: { priority: 'high' } } },
    });
    await tidings.runDue();
    expect(fcm.sent[0]!.message).toEqual({
      token: 'fcm-a',
      data: { n: '3', order: '{"id":7}', title: 'Hi Ada', body: 'You have 3 new', message: 'You have 3 new' },
      android: { priority: 'high' },
    });
    expect(await message(result.transactionId!)).toMatchObject({ status: 'sent' });
  });

  it('a JWT signed with a key Google does not know is refused: the message is error with invalid_grant', async () => {
    const fcm = await fake({ registered: ['fcm-a'] });
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const { push, message } = await engine(fcmProvider(local(fcm.url)), { serviceAccount: serviceAccount(otherKey) });
    expect(await message(await push(['fcm-a']))).toMatchObject({ status: 'error', errorId: 'invalid_grant', errorText: 'fcm token endpoint answered 400 (invalid_grant)' });
    expect(fcm.sent).toHaveLength(0);
  });

  it('a serviceAccount that is not JSON fails at once with invalid_credentials', async () => {
    const fcm = await fake({ registered: ['fcm-a'] });
    const { push, message } = await engine(fcmProvider(local(fcm.url)), { serviceAccount: '{ not json' });
    expect(await message(await push(['fcm-a']))).toMatchObject({ status: 'error', errorId: 'invalid_credentials' });
    expect(fcm.calls).toHaveLength(0);
  });

  it('QUOTA_EXCEEDED (429) is retried no sooner than FCM’s Retry-After', async () => {
    const fcm = await fake({ registered: ['fcm-a'], overQuota: 1 });
    const { tidings, clock, push, message } = await engine(fcmProvider(local(fcm.url)), { serviceAccount: serviceAccount() });
    const tx = await push(['fcm-a']);
    expect(fcm.sent).toHaveLength(0);
    clock.advance(2_000);
    await tidings.runDue();
    expect(await message(tx)).toBeUndefined();
    clock.advance(30_000);
    await tidings.runDue();
    expect(fcm.sent).toHaveLength(1);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });
});

describe('apns', () => {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const p8 = (privateKey = keys.privateKey) => privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const app = { teamId: 'TEAM123456', keyId: 'KEY1234567', bundleId: 'dev.tidings.app' };
  /** The integration's credentials, with Novu's names. */
  const credentials = (extra: Credentials = {}): Credentials => ({ secretKey: p8(), apiKey: app.keyId, projectName: app.teamId, applicationId: app.bundleId, ...extra });
  /** A device token as iOS hands it out: 32 bytes, hex. */
  const device = (name: string) => createHash('sha256').update(name).digest('hex');
  const fake = (extra: Partial<ApnsFakeOptions> = {}) => started(apnsFake({ ...app, publicKey: keys.publicKey, ...extra }));
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  it('sends one request per device token on one HTTP/2 connection, with a provider token Apple verifies; the message is sent under the apns-id', async () => {
    const apns = await fake();
    const { push, message, trace } = await engine(apnsProvider(local(apns.url)), credentials());
    const tx = await push([device('a'), device('b')]);
    expect(apns.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`POST /3/device/${device('a')}`, `POST /3/device/${device('b')}`]);
    expect(apns.connections()).toBe(1);
    for (const call of apns.calls) {
      expect(call.headers).toMatchObject({ 'apns-topic': app.bundleId, 'apns-push-type': 'alert', 'apns-priority': '10', 'content-type': 'application/json' });
      expect(call.headers['apns-expiration']).toBeUndefined();
      expect(call.headers.authorization).toMatch(/^bearer ey/);
      expect(call.jwt!.header).toEqual({ alg: 'ES256', kid: app.keyId });
      expect(Object.keys(call.jwt!.claims).sort()).toEqual(['iat', 'iss']);
      expect(call.jwt!.claims.iss).toBe(app.teamId);
      expect(call.json).toEqual({ n: 3, aps: { alert: { title: 'Hi Ada', body: 'You have 3 new' } } });
    }
    const apnsId = apns.calls[0]!.headers['apns-id'] as string;
    expect(apnsId).toMatch(uuid);
    expect(apns.calls[1]!.headers['apns-id']).toBe(apnsId);
    expect(await message(tx)).toMatchObject({ status: 'sent', providerId: 'apns', deviceTokens: [device('a'), device('b')] });
    expect(await trace(tx)).toContain(`as ${apnsId}`);
  });

  it('the apns-id is the message id when that is a UUID, else a UUID made from it: the same on every try', async () => {
    const apns = await fake();
    const provider = apnsProvider(local(apns.url));
    await provider.send(pushMessage([device('a')]), credentials());
    await provider.send(pushMessage([device('a')]), credentials());
    const messageId = randomUUID();
    await expect(provider.send({ ...pushMessage([device('a')]), messageId }, credentials())).resolves.toEqual({ id: messageId });
    const ids = apns.calls.map((c) => c.headers['apns-id']);
    expect(ids[0]).toMatch(uuid);
    expect(ids).toEqual([ids[0], ids[0], messageId]);
  });

  it('overrides.apns: badge, sound, category, thread, mutable content, collapse id, expiration, priority and custom keys', async () => {
    const apns = await fake();
    const overrides = { badge: 3, sound: 'ping.aiff', category: 'ORDER', threadId: 'orders', subtitle: 'Order 7', mutableContent: true, collapseId: 'order-7', expiration: 1_900_000_000, priority: 5, payload: { orderId: 7 } };
    await apnsProvider(local(apns.url)).send({ ...pushMessage([device('a')]), overrides }, credentials());
    expect(apns.calls[0]!.headers).toMatchObject({ 'apns-priority': '5', 'apns-collapse-id': 'order-7', 'apns-expiration': '1900000000', 'apns-push-type': 'alert' });
    expect(apns.calls[0]!.json).toEqual({
      orderId: 7,
      aps: { alert: { title: 'Hi', subtitle: 'Order 7', body: 'Hello' }, badge: 3, sound: 'ping.aiff', category: 'ORDER', 'thread-id': 'orders', 'mutable-content': 1 },
    });
  });

  it('a background push carries only content-available, with push type background and priority 5', async () => {
    const apns = await fake();
    await apnsProvider(local(apns.url)).send({ ...pushMessage([device('a')]), overrides: { pushType: 'background', badge: 1, data: { sync: true } } }, credentials());
    expect(apns.calls[0]!.headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5' });
    expect(apns.calls[0]!.json).toEqual({ sync: true, aps: { 'content-available': 1 } });
  });

  it('secure (production) or not (sandbox), the base URL replaces the host and keeps the path; the integration’s wins', async () => {
    const apns = await fake();
    const provider = apnsProvider({ baseUrl: 'http://127.0.0.1:9', network: { allow: ['127.0.0.1'] } });
    await provider.send(pushMessage([device('a')]), credentials({ baseUrl: apns.url, secure: true }));
    await provider.send(pushMessage([device('a')]), credentials({ baseUrl: apns.url, secure: false }));
    await provider.send(pushMessage([device('a')]), credentials({ baseUrl: apns.url }));
    expect(apns.calls.map((c) => c.path)).toEqual(Array(3).fill(`/3/device/${device('a')}`));
  });

  it('keeps the provider token for 40 minutes, then signs a new one', async () => {
    const apns = await fake();
    const provider = apnsProvider(local(apns.url));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      await provider.send(pushMessage([device('a'), device('b')]), credentials());
      vi.setSystemTime(Date.now() + 39 * 60_000);
      await provider.send(pushMessage([device('a')]), credentials());
      expect(apns.providerTokens).toHaveLength(1);
      expect(new Set(apns.calls.map((c) => c.headers.authorization)).size).toBe(1);
      vi.setSystemTime(Date.now() + 2 * 60_000);
      await expect(provider.send(pushMessage([device('a')]), credentials())).resolves.toEqual({ id: expect.stringMatching(uuid) });
      expect(apns.providerTokens).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a token Apple calls expired (ExpiredProviderToken) is renewed once and those devices are sent again', async () => {
    const apns = await fake();
    const provider = apnsProvider(local(apns.url));
    await provider.send(pushMessage([device('a')]), credentials());
    apns.expireTokens();
    await expect(provider.send(pushMessage([device('a'), device('b')]), credentials())).resolves.toEqual({ id: expect.stringMatching(uuid) });
    expect(apns.providerTokens).toHaveLength(2);
    expect(apns.calls).toHaveLength(5);
    expect(apns.connections()).toBe(2);
    // The renewed token is kept.
    await provider.send(pushMessage([device('a')]), credentials());
    expect(apns.providerTokens).toHaveLength(2);
  });

  it('reports Unregistered (410) tokens of a message another device took; a BadDeviceToken fails that device but is not called dead', async () => {
    const apns = await fake({ gone: [device('gone')] });
    const result = await apnsProvider(local(apns.url)).send(pushMessage([device('gone'), 'not-a-device-token', device('live')]), credentials());
    expect(result).toEqual({ id: expect.stringMatching(uuid), invalidTokens: [device('gone')] });
    expect(apns.calls.map((c) => c.path)).toEqual([`/3/device/${device('gone')}`, '/3/device/not-a-device-token', `/3/device/${device('live')}`]);
  });

  it('through the engine, a 410 token leaves the subscriber’s channel settings with the message’s commit; a malformed one stays', async () => {
    const apns = await fake({ gone: [device('gone')] });
    const { push, message, tokens } = await engine(apnsProvider(local(apns.url)), credentials());
    expect(await message(await push([device('gone'), 'not-a-device-token', device('live')]))).toMatchObject({ status: 'sent' });
    expect(await tokens()).toEqual(['not-a-device-token', device('live')]);
  });

  it('when every device is gone the message is error with Apple’s reason, and the dead tokens ride on the error', async () => {
    const apns = await fake({ gone: [device('x'), device('y')] });
    const provider = apnsProvider(local(apns.url));
    await expect(provider.send(pushMessage([device('x'), device('y')]), credentials())).rejects.toMatchObject({
      options: { retryable: false, status: 410, code: 'Unregistered', invalidTokens: [device('x'), device('y')] },
    });
    const { push, message } = await engine(provider, credentials());
    expect(await message(await push([device('x')]))).toMatchObject({ status: 'error', errorId: 'Unregistered', errorText: 'apns answered 410 (Unregistered)' });
  });

  it('TooManyRequests (429) is retryable after Apple’s Retry-After', async () => {
    const apns = await fake({ failures: [{ status: 429, reason: 'TooManyRequests', retryAfter: '30' }] });
    await expect(apnsProvider(local(apns.url)).send(pushMessage([device('a')]), credentials())).rejects.toMatchObject({
      options: { retryable: true, status: 429, code: 'TooManyRequests', retryAfterMs: 30_000 },
    });
  });

  it('an outage (503 ServiceUnavailable) is retried on the next run, and the message is then sent', async () => {
    const apns = await fake({ failures: [{ status: 503, reason: 'ServiceUnavailable' }] });
    const { tidings, clock, push, message } = await engine(apnsProvider(local(apns.url)), credentials());
    const tx = await push([device('a')]);
    expect(await message(tx)).toBeUndefined();
    expect(await tidings.explain(tx)).toMatchObject([{ entries: [expect.objectContaining({ reason: expect.stringContaining('apns answered 503 (ServiceUnavailable); will retry') })] }]);
    clock.advance(1_000);
    await tidings.runDue();
    expect(apns.calls).toHaveLength(2);
    expect(await message(tx)).toMatchObject({ status: 'sent' });
  });

  it('a token signed with a key Apple does not know is a final InvalidProviderToken', async () => {
    const apns = await fake();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const { push, message } = await engine(apnsProvider(local(apns.url)), credentials({ secretKey: p8(other) }));
    expect(await message(await push([device('a')]))).toMatchObject({ status: 'error', errorId: 'InvalidProviderToken', errorText: 'apns answered 403 (InvalidProviderToken)' });
    expect(apns.calls).toHaveLength(1);
  });

  it('missing credentials fail at once, naming them; a key that is not a .p8 key is invalid_credentials', async () => {
    const apns = await fake();
    const { push, message } = await engine(apnsProvider(local(apns.url)), { secretKey: p8(), apiKey: app.keyId });
    expect(await message(await push([device('a')]))).toMatchObject({
      status: 'error',
      errorId: 'missing_credentials',
      errorText: 'apns: the integration has no projectName, applicationId credentials',
    });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    for (const secretKey of ['not a key', p8(rsa)]) {
      await expect(apnsProvider(local(apns.url)).send(pushMessage([device('a')]), credentials({ secretKey }))).rejects.toMatchObject({ options: { retryable: false, code: 'invalid_credentials' } });
    }
    await expect(apnsProvider(local(apns.url)).send(pushMessage([]), credentials())).rejects.toMatchObject({ options: { retryable: false, code: 'missing_device_tokens' } });
    expect(apns.calls).toHaveLength(0);
  });

  it('a key kept with escaped line breaks (an environment variable) is read', async () => {
    const apns = await fake();
    await apnsProvider(local(apns.url)).send(pushMessage([device('a')]), credentials({ secretKey: p8().replace(/\n/g, '\\n') }));
    expect(apns.calls[0]!.jwt).toBeDefined();
  });

  it('a base URL on loopback is refused without network.allow, before any connection', async () => {
    const apns = await fake();
    await expect(apnsProvider({ baseUrl: apns.url }).send(pushMessage([device('a')]), credentials())).rejects.toMatchObject({ options: { retryable: false, code: 'address_refused' } });
    expect(apns.connections()).toBe(0);
  });
});

describe('a code workflow push step’s badge, sound and data, in each service’s payload', () => {
  const stepExtras = { badge: 2, sound: 'ping.aiff', data: { orderId: '7' }, ttl: 60 };
  const withExtras = (tokens: string[]) => ({ ...pushMessage(tokens), data: stepExtras });

  it('expo: its own data, sound and badge fields; the trigger’s overrides win a clash', async () => {
    const expo = await started(expoFake({ registered: ['ExponentPushToken[a]'] }));
    await expoProvider(local(expo.url)).send(withExtras(['ExponentPushToken[a]']), {});
    expect(expo.calls[0]!.json).toEqual([{ to: 'ExponentPushToken[a]', title: 'Hi', body: 'Hello', data: { orderId: '7' }, sound: 'ping.aiff', badge: 2 }]);
    await expoProvider(local(expo.url)).send({ ...withExtras(['ExponentPushToken[a]']), overrides: { sound: 'default' } }, {});
    expect(expo.calls[1]!.json).toEqual([{ to: 'ExponentPushToken[a]', title: 'Hi', body: 'Hello', data: { orderId: '7' }, sound: 'default', badge: 2 }]);
  });

  it('one-signal: data, ios_sound and the badge count set to the step’s', async () => {
    const app = { appId: '202d4f61-1ca9-42df-9d36-bb17d8123abc', apiKey: 'rest-api-key' };
    const oneSignal = await started(oneSignalFake({ ...app, subscribed: ['player-1'] }));
    await oneSignalProvider(local(oneSignal.url)).send(withExtras(['player-1']), { applicationId: app.appId, apiKey: app.apiKey });
    expect(oneSignal.calls[0]!.json).toMatchObject({ data: { orderId: '7' }, ios_sound: 'ping.aiff', ios_badgeType: 'SetTo', ios_badgeCount: 2 });
  });

  it('fcm: data as string values, the sound on Android’s notification and in the APNs payload with the badge', async () => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const account = { projectId: 'tidings-test', clientEmail: 'push@tidings-test.iam.gserviceaccount.com', keyId: 'key-1' };
    const fcm = await started(fcmFake({ ...account, publicKey: keys.publicKey, registered: ['fcm-a'] }));
    const serviceAccount = JSON.stringify({ type: 'service_account', project_id: account.projectId, private_key_id: account.keyId, private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }), client_email: account.clientEmail, token_uri: GOOGLE_TOKEN_URI });
    await fcmProvider(local(fcm.url)).send(withExtras(['fcm-a']), { serviceAccount });
    expect(fcm.sent[0]!.message).toEqual({
      token: 'fcm-a',
      notification: { title: 'Hi', body: 'Hello' },
      data: { orderId: '7' },
      android: { notification: { sound: 'ping.aiff' } },
      apns: { payload: { aps: { sound: 'ping.aiff', badge: 2 } } },
    });
  });

  it('apns: badge and sound in aps, data as the custom keys', async () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const app = { teamId: 'TEAM123456', keyId: 'KEY1234567', bundleId: 'dev.tidings.app' };
    const apns = await started(apnsFake({ ...app, publicKey: keys.publicKey }));
    const token = createHash('sha256').update('a').digest('hex');
    const credentials = { secretKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, apiKey: app.keyId, projectName: app.teamId, applicationId: app.bundleId };
    await apnsProvider(local(apns.url)).send(withExtras([token]), credentials);
    expect(apns.calls[0]!.json).toEqual({ orderId: '7', aps: { alert: { title: 'Hi', body: 'Hello' }, badge: 2, sound: 'ping.aiff' } });
  });
});
