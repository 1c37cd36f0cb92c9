import type { Channel, Integration, Subscriber } from '../schemas/index.js';
import type { ChatAddress, ProviderRecipient } from './provider.js';

export type RecipientResolution = { ok: true; to: ProviderRecipient } | { ok: false; reason: string };

/**
 * The address a channel message goes to: email and phone from the subscriber; for push, and chat
 * but for chat providers that send to a phone, the subscriber's channel settings for the
 * integration's provider (matching its identifier when the setting names one), with the
 * integration's own webhook URL as the fallback of chat webhooks.
 */
export function resolveRecipient(subscriber: Subscriber, channel: Channel, integration: Integration, chatAddress: ChatAddress = 'webhookUrl'): RecipientResolution {
  const base = { subscriberId: subscriber.subscriberId };
  switch (channel) {
    case 'email': {
      // The name the email is addressed to: `"Ada Lovelace" <ada@…>`.
      const name = [subscriber.firstName, subscriber.lastName].filter((part) => typeof part === 'string' && part.trim() !== '').join(' ').trim();
      return subscriber.email ? { ok: true, to: { ...base, email: subscriber.email, ...(name !== '' && { name }) } } : { ok: false, reason: 'the subscriber has no email address' };
    }
    case 'sms':
      return subscriber.phone ? { ok: true, to: { ...base, phone: subscriber.phone } } : { ok: false, reason: 'the subscriber has no phone number' };
    case 'chat':
    case 'push': {
      const settings = subscriber.channels.find(
        (c) => c.providerId === integration.providerId && (c.integrationIdentifier === undefined || c.integrationIdentifier === integration.identifier),
      );
      if (channel === 'chat' && chatAddress === 'phone') {
        return subscriber.phone ? { ok: true, to: { ...base, phone: subscriber.phone } } : { ok: false, reason: 'the subscriber has no phone number' };
      }
      if (channel === 'chat' && chatAddress === 'chatId') {
        const chatId = settings?.credentials.channel;
        return chatId ? { ok: true, to: { ...base, channel: chatId } } : { ok: false, reason: `the subscriber has no ${integration.providerId} chat id (the channel setting's "channel")` };
      }
      if (channel === 'chat') {
        const webhookUrl = settings?.credentials.webhookUrl ?? integration.credentials.webhookUrl;
        return webhookUrl
          ? { ok: true, to: { ...base, webhookUrl, ...(settings?.credentials.channel !== undefined && { channel: settings.credentials.channel }) } }
          : { ok: false, reason: `the subscriber has no ${integration.providerId} webhook URL` };
      }
      const deviceTokens = settings?.credentials.deviceTokens ?? [];
      return deviceTokens.length > 0 ? { ok: true, to: { ...base, deviceTokens } } : { ok: false, reason: `the subscriber has no ${integration.providerId} device tokens` };
    }
    case 'in_app':
      return { ok: true, to: base };
  }
}
