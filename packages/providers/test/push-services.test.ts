import { generateKeyPairSync } from 'node:crypto';
import { createTidings, type Credentials, type Provider, type ProviderMessage } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { expoProvider } from '../src/push/expo.js';
import { fcmProvider } from '../src/push/fcm.js';
import { oneSignalProvider } from '../src/push/one-signal.js';
import { expoFake } from './services/push-expo.js';
import { fcmFake, GOOGLE_TOKEN_URI } from './services/push-fcm.js';
import { oneSignalFake } from './services/push-one-signal.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
async function started<T extends { close(): Promise<unknown> }>(fake: Promise<T>): Promise<T> {
  const server = await fake;
  closers.push(server.close);
  return server;
}

const local = (url: string) => ({ baseUrl: url, network: { allow: ['127.0.0.1'] } });

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
  return { tidings, clock, push, message, trace };
}

/** A message as the engine hands it to a push provider. */
const pushMessage = (deviceTokens: string[]): ProviderMessage => ({
  messageId: 'msg-1',
  transactionId: 'tx-1',
  channel: 'push',
  to: { subscriberId: 'ada', deviceTokens },
  title: 'Hi',
  content: 'Hello',
  payload: { n: 1 },
  overrides: {},
});


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
    expect(oneSignal.calls[0]!.json).toEqual({ app_id: app.appId, include_player_ids: ['player-1', 'player-2'], headings: { en: 'Hi Ada' }, contents: { en: 'You have 3 new' }, data: { n: 3 } });
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
