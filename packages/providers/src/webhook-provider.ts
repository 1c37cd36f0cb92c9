import { createHmac } from 'node:crypto';
import { ProviderError, type Channel, type Credentials, type Provider, type ProviderMessage } from '@tidings/core';
import { postJson } from './http.js';
import type { NetworkPolicy } from './network-policy.js';

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
 * A provider that POSTs one JSON body to a webhook. With `credentials.secretKey`, the body is signed:
 * `x-tidings-signature: sha256=<hex HMAC of the body>`.
 */
export function webhookProvider(shape: WebhookShape, options: WebhookProviderOptions = {}): Provider {
  return {
    id: shape.id,
    channel: shape.channel,
    async send(message, credentials) {
      const url = shape.url(message, credentials);
      if (!url) throw new ProviderError(`no webhook URL for ${shape.id}`, { retryable: false, code: 'missing_webhook_url' });
      const body = shape.body(message, credentials);
      const headers: Record<string, string> = {};
      if (credentials.secretKey) headers['x-tidings-signature'] = `sha256=${createHmac('sha256', credentials.secretKey).update(JSON.stringify(body)).digest('hex')}`;
      await postJson(url, body, { headers, ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }), ...(options.network && { network: options.network }) });
      return { id: message.messageId };
    },
  };
}
