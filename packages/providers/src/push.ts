import type { Provider } from '@tidings/core';
import { webhookProvider, type WebhookProviderOptions } from './webhook-provider.js';

/**
 * Push through your own endpoint: posts `{ title, content, deviceTokens, subscriberId, payload }` (and
 * `data`, what a code workflow's push step returned besides its title and body) to the integration's
 * `credentials.webhookUrl`, signed with `credentials.secretKey` when set.
 */
export const pushWebhookProvider = (options?: WebhookProviderOptions): Provider =>
  webhookProvider(
    {
      id: 'push-webhook',
      channel: 'push',
      url: (_m, credentials) => credentials.webhookUrl,
      body: (m) => ({
        title: m.title ?? m.subject ?? '',
        content: m.content,
        deviceTokens: m.to.deviceTokens ?? [],
        subscriberId: m.to.subscriberId,
        transactionId: m.transactionId,
        messageId: m.messageId,
        payload: m.payload,
        ...(m.data !== undefined && { data: m.data }),
        ...m.overrides,
      }),
    },
    options,
  );
