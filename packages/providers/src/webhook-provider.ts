import { ProviderError, type Channel, type Credentials, type Provider, type ProviderMessage } from '@tidings/core';
import { answerError, serviceRequest } from './http.js';
import type { NetworkPolicy } from './network-policy.js';
import { requestOptions } from './service-options.js';
import { standardWebhookHeaders } from './standard-webhooks.js';

export interface WebhookProviderOptions {
  /** @default 10_000 */
  readonly timeoutMs?: number;
  /**
   * Which addresses webhook URLs may reach: public ones only unless `allow` lists host names,
   * addresses or CIDR ranges (e.g. `{ allow: ['10.0.0.0/8', 'hooks.internal'] }`).
   * @default { allow: [] }
   */
  readonly network?: NetworkPolicy;
}

interface WebhookShape {
  readonly id: string;
  readonly channel: Channel;
  /** The URL to post to. */
  url(message: ProviderMessage, credentials: Credentials): string | undefined;
  /** The JSON body the service expects. */
  body(message: ProviderMessage, credentials: Credentials): unknown;
}

/**
 * The Standard Webhooks secret of a `secretKey`: a `whsec_…` secret as it is, any other text as the
 * secret whose key is its UTF-8 bytes (receivers pass `whsec_` + its base64 to their library).
 */
const standardSecret = (secretKey: string) => (secretKey.startsWith('whsec_') ? secretKey : `whsec_${Buffer.from(secretKey, 'utf8').toString('base64')}`);

/**
 * A provider that POSTs one JSON body to a webhook. With `credentials.secretKey`, it is signed as the
 * Standard Webhooks specification says (`webhook-id` the message id, the same on every retry;
 * `webhook-timestamp`; `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`), so a
 * receiver verifies it with any Standard Webhooks or Svix library and refuses a replayed one.
 */
export function webhookProvider(shape: WebhookShape, options: WebhookProviderOptions = {}): Provider {
  return {
    id: shape.id,
    channel: shape.channel,
    async send(message, credentials, context) {
      const url = shape.url(message, credentials);
      if (!url) throw new ProviderError(`no webhook URL for ${shape.id}`, { retryable: false, code: 'missing_webhook_url' });
      const body = JSON.stringify(shape.body(message, credentials));
      let signed = {};
      try {
        if (credentials.secretKey) signed = standardWebhookHeaders(standardSecret(credentials.secretKey), { id: message.messageId, timestamp: Math.floor(Date.now() / 1000), body });
      } catch (error) {
        throw new ProviderError(`${shape.id}: the secretKey is not usable: ${(error as Error).message}`, { retryable: false, code: 'invalid_credentials' });
      }
      const answer = await serviceRequest(
        { url, headers: { 'content-type': 'application/json', ...signed }, body },
        requestOptions(options, context?.signal),
      );
      if (answer.status < 200 || answer.status >= 300) throw answerError(new URL(url).host, answer);
      return { id: message.messageId };
    },
  };
}
