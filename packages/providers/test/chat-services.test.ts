import { createTidings, type Credentials, type Provider, type ProviderMessage, type ProviderRecipient, type SubscriberInput } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { telegramProvider } from '../src/chat/telegram.js';
import { whatsAppProvider } from '../src/chat/whatsapp-business.js';
import { telegramFake } from './services/chat-telegram.js';
import { whatsAppFake } from './services/chat-whatsapp.js';
import { local, started } from './started.js';

const chatMessage = (to: Omit<ProviderRecipient, 'subscriberId'>, extra: Partial<ProviderMessage> = {}): ProviderMessage => ({
  messageId: 'msg-1',
  transactionId: 'tx-1',
  channel: 'chat',
  to: { subscriberId: 'ada', ...to },
  content: 'Build 42 failed',
  payload: {},
  overrides: {},
  ...extra,
});

/** Triggers a chat workflow through an engine whose one chat integration `provider` serves; returns the message and the explain text. */
async function sendThroughEngine(provider: Provider, credentials: Credentials, to: SubscriberInput) {
  const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [provider] });
  await tidings.integrations.upsert({ name: provider.id, providerId: provider.id, channel: 'chat', credentials, active: true, primary: true });
  await tidings.workflows.upsert({ name: 'c', triggers: [{ identifier: 'c' }], steps: [{ template: { type: 'chat', content: 'Build {{ payload.build }} failed' } }] });
  const { transactionId } = await tidings.trigger({ name: 'c', to, payload: { build: 42 } });
  await tidings.runDue();
  const [message] = await tidings.messages.byTransaction(transactionId!);
  return { message, explain: JSON.stringify(await tidings.explain(transactionId!)) };
}

describe('telegram', () => {
  const botToken = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

  it('posts { chat_id, text } to the bot’s sendMessage and resolves with Telegram’s message_id', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'] }));
    const result = await telegramProvider(local(telegram.url)).send(chatMessage({ channel: '424242' }), { apiToken: botToken });
    expect(telegram.calls).toHaveLength(1);
    expect(telegram.calls[0]!.path).toBe(`/bot${botToken}/sendMessage`);
    expect(telegram.calls[0]!.json).toEqual({ chat_id: '424242', text: 'Build 42 failed' });
    expect(result).toEqual({ id: String(telegram.delivered[0]!.messageId) });
  });

  it('adds the trigger’s overrides (parse_mode) and cuts text to Telegram’s 4096 characters', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'] }));
    await telegramProvider(local(telegram.url)).send(chatMessage({ channel: '424242' }, { content: 'x'.repeat(5_000), overrides: { parse_mode: 'MarkdownV2' } }), { apiToken: botToken });
    expect(telegram.calls[0]!.json).toMatchObject({ parse_mode: 'MarkdownV2' });
    expect(telegram.delivered[0]!.text).toHaveLength(4096);
  });

  it('an unknown chat is a final error with Telegram’s error_code, and nothing of its description', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'] }));
    const sending = telegramProvider(local(telegram.url)).send(chatMessage({ channel: '999' }), { apiToken: botToken });
    await expect(sending).rejects.toMatchObject({ message: 'telegram answered 400 (400)', options: { retryable: false, status: 400, code: '400' } });
  });

  it('a wrong bot token is a final error (401)', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'] }));
    await expect(telegramProvider(local(telegram.url)).send(chatMessage({ channel: '424242' }), { apiToken: '1:wrong' })).rejects.toMatchObject({ options: { retryable: false, code: '401' } });
  });

  it('flood control (429) is retryable after Telegram’s retry_after', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'], flooded: 1 }));
    const provider = telegramProvider(local(telegram.url));
    await expect(provider.send(chatMessage({ channel: '424242' }), { apiToken: botToken })).rejects.toMatchObject({ options: { retryable: true, code: '429', retryAfterMs: 7_000 } });
    await expect(provider.send(chatMessage({ channel: '424242' }), { apiToken: botToken })).resolves.toEqual({ id: '100' });
  });

  it('no bot token or no chat id fails at once, naming what is missing', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'] }));
    const provider = telegramProvider(local(telegram.url));
    await expect(provider.send(chatMessage({ channel: '424242' }), {})).rejects.toMatchObject({ message: expect.stringContaining('apiToken'), options: { retryable: false, code: 'missing_credentials' } });
    await expect(provider.send(chatMessage({}), { apiToken: botToken })).rejects.toMatchObject({ options: { retryable: false, code: 'missing_chat_id' } });
    expect(telegram.calls).toHaveLength(0);
  });

  it('through the engine, goes to the chat id of the subscriber’s telegram channel setting; without one the step is not sent and says why', async () => {
    const telegram = await started(telegramFake({ botToken, chats: ['424242'] }));
    const provider = telegramProvider(local(telegram.url));
    const sent = await sendThroughEngine(provider, { apiToken: botToken }, { subscriberId: 'ada', channels: [{ providerId: 'telegram', credentials: { channel: '424242' } }] });
    expect(telegram.calls[0]!.json).toEqual({ chat_id: '424242', text: 'Build 42 failed' });
    expect(sent.message).toMatchObject({ status: 'sent', providerId: 'telegram' });
    expect(sent.explain).toContain(`as ${telegram.delivered[0]!.messageId}`);
    const none = await sendThroughEngine(provider, { apiToken: botToken }, { subscriberId: 'bob' });
    expect(none.message).toMatchObject({ status: 'warning' });
    expect(none.explain).toContain('the subscriber has no telegram chat id');
    expect(telegram.calls).toHaveLength(1);
  });
});

describe('whatsapp-business', () => {
  const business = { phoneNumberId: '106540352242922', accessToken: 'EAAJB-whatsapp-token' };
  const credentials = { apiToken: business.accessToken, phoneNumberIdentification: business.phoneNumberId };

  it('posts a text message to the subscriber’s phone with the bearer token and resolves with the wamid', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: ['+15550100'] }));
    const result = await whatsAppProvider(local(whatsapp.url)).send(chatMessage({ phone: '+15550100' }), credentials);
    expect(whatsapp.calls[0]!.headers.authorization).toBe(`Bearer ${business.accessToken}`);
    expect(whatsapp.calls[0]!.json).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: '+15550100', type: 'text', text: { body: 'Build 42 failed', preview_url: false } });
    expect(result).toEqual({ id: whatsapp.delivered[0]!.id });
  });

  it('through the engine, goes to the subscriber’s phone, with no chat channel setting needed', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: ['+15550100'] }));
    const provider = whatsAppProvider(local(whatsapp.url));
    const sent = await sendThroughEngine(provider, credentials, { subscriberId: 'ada', phone: '+15550100' });
    expect(whatsapp.calls[0]!.json).toMatchObject({ to: '+15550100', type: 'text', text: { body: 'Build 42 failed' } });
    expect(sent.message).toMatchObject({ status: 'sent', providerId: 'whatsapp-business', phone: '+15550100' });
    const none = await sendThroughEngine(provider, credentials, { subscriberId: 'bob' });
    expect(none.message).toMatchObject({ status: 'warning' });
    expect(none.explain).toContain('the subscriber has no phone number');
    expect(whatsapp.calls).toHaveLength(1);
  });

  it('sends a template when the trigger’s overrides name one', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: ['+15550100'] }));
    const template = { name: 'build_failed', language: { code: 'en_US' } };
    await whatsAppProvider(local(whatsapp.url)).send(chatMessage({ phone: '+15550100' }, { overrides: { template } }), credentials);
    expect(whatsapp.delivered[0]!.body).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: '+15550100', type: 'template', template });
  });

  it('an undeliverable number is a final error with Meta’s code 131026', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: [] }));
    await expect(whatsAppProvider(local(whatsapp.url)).send(chatMessage({ phone: '+15550199' }), credentials)).rejects.toMatchObject({
      message: 'whatsapp-business answered 400 (131026)',
      options: { retryable: false, status: 400, code: '131026' },
    });
  });

  it('an expired access token is a final error with code 190', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: ['+15550100'] }));
    await expect(whatsAppProvider(local(whatsapp.url)).send(chatMessage({ phone: '+15550100' }), { ...credentials, apiToken: 'expired' })).rejects.toMatchObject({
      options: { retryable: false, status: 401, code: '190' },
    });
  });

  it('the throughput limit (130429) is retryable though Meta answers 400', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: ['+15550100'], throttled: 1 }));
    const provider = whatsAppProvider(local(whatsapp.url));
    await expect(provider.send(chatMessage({ phone: '+15550100' }), credentials)).rejects.toMatchObject({ options: { retryable: true, status: 400, code: '130429' } });
    await expect(provider.send(chatMessage({ phone: '+15550100' }), credentials)).resolves.toEqual({ id: expect.stringMatching(/^wamid\./) });
  });

  it('a missing credential or phone fails at once, naming it', async () => {
    const whatsapp = await started(whatsAppFake({ ...business, reachable: ['+15550100'] }));
    const provider = whatsAppProvider(local(whatsapp.url));
    await expect(provider.send(chatMessage({ phone: '+15550100' }), { apiToken: business.accessToken })).rejects.toMatchObject({
      message: 'whatsapp-business: the integration has no phoneNumberIdentification credential',
      options: { code: 'missing_credentials' },
    });
    await expect(provider.send(chatMessage({ webhookUrl: 'https://hooks.example/x' }), credentials)).rejects.toMatchObject({ options: { code: 'missing_phone' } });
    expect(whatsapp.calls).toHaveLength(0);
  });
});
