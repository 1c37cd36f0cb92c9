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
