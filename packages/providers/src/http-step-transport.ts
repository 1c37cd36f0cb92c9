import type { HttpStepTransport } from '@tidings/core/internal';
import { serviceRequest } from './http.js';
import type { NetworkPolicy } from './network-policy.js';

/** Options of `httpStepTransport`. */
export interface HttpStepTransportOptions {
  /** Which addresses workflows' `http` steps may reach (see `NetworkPolicy`). @default public addresses only */
  readonly network?: NetworkPolicy;
}

/**
 * Sends workflows' `http` steps through the same address guard as the providers and webhooks:
 * only public addresses unless `network.allow` lists more, checked on the address connected to;
 * redirects not followed; at most 64 KB of the answer read. Each request gets the step's timeout.
 */
export const httpStepTransport = (options: HttpStepTransportOptions = {}): HttpStepTransport =>
  async ({ method, url, headers, body, timeoutMs }) => {
    const answer = await serviceRequest({ method, url, headers: { 'user-agent': 'Tidings-Workflows', ...headers }, ...(body !== undefined && { body }) }, { timeoutMs, ...(options.network && { network: options.network }) });
    return { status: answer.status, headers: answer.headers, body: answer.body };
  };
