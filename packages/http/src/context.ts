import type { Clock, Tidings } from '@tidings/core';
import type { InboxOptions } from './inbox/inbox-options.js';
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
  readonly environments: readonly {
    tidings: Tidings;
    apiKeys: readonly string[];
    applicationIdentifier?: string;
    /**
     * The first API key before a rotation, accepted until `until` for the Inbox: subscriber and
     * context hashes made with it still open sessions, and its session tokens still work, so a deploy
     * that rotates the key does not sign every open tab out at once.
     */
    previousInboxKey?: { key: string; until: Date | string };
  }[];
  /** Novu's Inbox API under `/v1/inbox`. */
  readonly inbox?: InboxOptions;
  /** Largest accepted request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /** Time of error envelopes and idempotency records. @default the first engine's clock */
  readonly clock?: Clock;
  /** Called with each error answered as a 500 (the client sees no detail). @default logs it with console.error */
  readonly onError?: (error: unknown) => void;
  /**
   * The app is reached only through a proxy that sets `X-Forwarded-Proto` and `X-Forwarded-Host`
   * (overwriting what clients send): the URL a provider signed (Twilio's status callbacks) is rebuilt
   * from them. Off, they are ignored, since any client could send them to choose the URL a signature
   * is checked against. @default false
   */
  readonly trustProxy?: boolean;
  /** Serve the engines' metrics at `GET /metrics` (Prometheus' text format). @default not served */
  readonly metrics?: MetricsOptions;
}

export interface MetricsOptions {
  /**
   * What `/metrics` answers with: the text of a meter provider the engines were given, in Prometheus'
   * format (`prometheusMetrics()` of `@tidings/cli` makes one with OpenTelemetry's Prometheus exporter).
   */
  readonly prometheus: { respond(): Promise<Response> };
  /**
   * The token scrapers must send as `Authorization: Bearer <token>` (Prometheus' `authorization`
   * setting); it is compared in constant time, and a request without it is a 401 that collects
   * nothing. Not the API key: a scraper's configuration should not hold the power to trigger and read
   * inboxes. @default none: anyone who reaches the port may scrape
   */
  readonly token?: string;
}
