import type { WebhookTransport } from '@tidings/core';
import { serviceRequest } from './http.js';
import type { ServiceProviderOptions } from './service-options.js';
import { requestOptions } from './service-options.js';
import { standardWebhookHeaders } from './standard-webhooks.js';

/**
 * Sends the engine's webhook deliveries: a JSON POST signed as Standard Webhooks says (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) with the endpoint's secret, through the same address
 * guard as the providers (public addresses only unless `network.allow` lists more), redirects not
 * followed. Resolves with the receiver's status; an unreachable receiver throws. The receiver has
 * `timeoutMs` to answer (5 s by default, as Svix gives).
 */
export const webhookTransport = (options: Omit<ServiceProviderOptions, 'baseUrl'> = {}): WebhookTransport =>
  async ({ url, secret, id, body }) => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'content-type': 'application/json', 'user-agent': 'Tidings-Webhooks', ...standardWebhookHeaders(secret, { id, timestamp, body }) };
    const answer = await serviceRequest({ url, headers, body }, requestOptions({ timeoutMs: 5_000, ...options }));
    return { status: answer.status };
  };
