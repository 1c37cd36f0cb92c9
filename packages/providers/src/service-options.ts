import type { Credentials } from '@tidings/core';
import type { PostOptions } from './http.js';
import type { NetworkPolicy } from './network-policy.js';

/** Options every provider of a hosted service takes. */
export interface ServiceProviderOptions {
  /**
   * Replaces the scheme and host of the service's documented URL, keeping its path: a regional
   * host, a proxy, or a test server. An integration's `credentials.baseUrl` overrides it.
   */
  readonly baseUrl?: string;
  /** Which addresses may be reached (see `NetworkPolicy`). @default public addresses only */
  readonly network?: NetworkPolicy;
  /** @default 10_000 */
  readonly timeoutMs?: number;
}

/** The integration's `baseUrl` wins over the provider's, as Novu lets an integration set its own. */
export const baseUrlOf = (credentials: Credentials, options: ServiceProviderOptions) => credentials.baseUrl || options.baseUrl;

/**
 * The request options (timeout, network policy) a provider's options give every request it makes,
 * and the send's signal when it has one.
 */
export const requestOptions = (options: ServiceProviderOptions, signal?: AbortSignal): PostOptions => ({
  ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  ...(options.network && { network: options.network }),
  ...(signal && { signal }),
});
