import type { Provider, ProviderMessage } from '@tidings/core';
import { webhookProvider, type WebhookProviderOptions } from './webhook-provider.js';

const toUrl = (message: ProviderMessage) => message.to.webhookUrl;

/** Posts `{ content, subject, subscriberId, transactionId, payload }` to the subscriber's (or integration's) webhook URL. */
export const chatWebhookProvider = (options?: WebhookProviderOptions): Provider =>
  webhookProvider(
    {
      id: 'chat-webhook',
      channel: 'chat',
      url: toUrl,
      body: (m) => ({ content: m.content, ...(m.subject && { subject: m.subject }), subscriberId: m.to.subscriberId, transactionId: m.transactionId, messageId: m.messageId, payload: m.payload, ...m.overrides }),
    },
    options,
  );

/** Slack incoming webhooks: `{ text }`, plus `channel` when the subscriber's settings name one. */
export const slackProvider = (options?: WebhookProviderOptions): Provider =>
  webhookProvider({ id: 'slack', channel: 'chat', url: toUrl, body: (m) => ({ text: m.content, ...(m.to.channel && { channel: m.to.channel }), ...m.overrides }) }, options);

/** Discord webhooks: `{ content }` (Discord caps it at 2000 characters). */
export const discordProvider = (options?: WebhookProviderOptions): Provider =>
  webhookProvider({ id: 'discord', channel: 'chat', url: toUrl, body: (m) => ({ content: m.content.slice(0, 2_000), ...m.overrides }) }, options);

/** Microsoft Teams incoming webhooks: a MessageCard with the text (and the subject as its title). */
export const msTeamsProvider = (options?: WebhookProviderOptions): Provider =>
  webhookProvider(
    {
      id: 'msteams',
      channel: 'chat',
      url: toUrl,
      body: (m) => ({ '@type': 'MessageCard', '@context': 'https://schema.org/extensions', summary: m.subject ?? m.content.slice(0, 80), ...(m.subject && { title: m.subject }), text: m.content, ...m.overrides }),
    },
    options,
  );
