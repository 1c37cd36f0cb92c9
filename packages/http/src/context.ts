import type { Clock, Tidings } from '@tidings/core';
import type { InboxOptions } from './inbox/inbox-routes.js';
import type { InboxSession } from './inbox/session.js';

export type AppEnv = {
  Variables: {
    tidings: Tidings;
    /** The raw request body, read once (idempotency hashes it, handlers parse it). */
    bodyText: string;
    /** Set when the request runs under an idempotency key (see `idempotency.ts`). */
    idempotency: IdempotentRequest | undefined;
    /** The session of an Inbox call (`/v1/inbox`, Bearer token). */
    inbox: InboxSession | undefined;
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
  /**
   * One engine per environment, and the API keys that reach it. `applicationIdentifier` is the public
   * id Novu's Inbox client opens sessions with (its subscriber hashes are keyed with the first API
   * key); without one the environment serves no Inbox.
   */
  readonly environments: readonly { tidings: Tidings; apiKeys: readonly string[]; applicationIdentifier?: string }[];
  /** Novu's Inbox API under `/v1/inbox`. */
  readonly inbox?: InboxOptions;
  /** Largest accepted request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /** Time of error envelopes and idempotency records. @default the first engine's clock */
  readonly clock?: Clock;
  /** Called with each error answered as a 500 (the client sees no detail). @default logs it with console.error */
  readonly onError?: (error: unknown) => void;
}
