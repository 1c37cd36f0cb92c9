import type { Clock, Tidings } from '@tidings/core';

export type AppEnv = {
  Variables: {
    tidings: Tidings;
    /** The raw request body, read once (idempotency hashes it, handlers parse it). */
    bodyText: string;
    /** Set when the request runs under an idempotency key (see `idempotency.ts`). */
    idempotency: IdempotentRequest | undefined;
  };
};

/** A request started under an idempotency key: the key, when its use began, and what it asks. */
export interface IdempotentRequest {
  readonly key: string;
  readonly since: string;
  readonly fingerprint: string;
}

export interface HttpAppOptions {
  /** One engine per environment, and the API keys that reach it. */
  readonly environments: readonly { tidings: Tidings; apiKeys: readonly string[] }[];
  /** Largest accepted request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /** Time of error envelopes and idempotency records. @default the first engine's clock */
  readonly clock?: Clock;
  /** Called with each error answered as a 500 (the client sees no detail). @default logs it with console.error */
  readonly onError?: (error: unknown) => void;
}
