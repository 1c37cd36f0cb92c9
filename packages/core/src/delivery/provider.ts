import type { Channel, Credentials, JsonObject } from '../schemas/index.js';

/** Where a message goes, resolved from the subscriber and the integration. */
export interface ProviderRecipient {
  readonly subscriberId: string;
  readonly email?: string;
  readonly phone?: string;
  readonly webhookUrl?: string;
  readonly deviceTokens?: readonly string[];
  readonly channel?: string;
}

/** A rendered message as a provider sends it. */
export interface ProviderMessage {
  readonly messageId: string;
  readonly transactionId: string;
  readonly channel: Channel;
  readonly to: ProviderRecipient;
  readonly subject?: string;
  readonly title?: string;
  /** Plain text (for email, the text part). */
  readonly content: string;
  /** Email only: the HTML part. */
  readonly html?: string;
  readonly payload: JsonObject;
  /** `overrides[providerId]` of the trigger, if any. */
  readonly overrides: JsonObject;
}

export interface ProviderResult {
  /** The provider's own id of the sent message. */
  readonly id?: string;
}

/**
 * A delivery provider: `id` is the integration `providerId` it serves. `send` resolves when the
 * provider accepted the message and throws `ProviderError` when it did not.
 */
export interface Provider {
  readonly id: string;
  readonly channel: Channel;
  send(message: ProviderMessage, credentials: Credentials): Promise<ProviderResult>;
}

/** A failed send. `retryable` failures (network, timeouts, 5xx, 429) are tried again with backoff. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly options: {
      retryable: boolean;
      status?: number;
      /** The service's own error code: the message's `errorId`. */
      code?: string;
      /** How long the service asked to wait before the next try (`Retry-After`), in ms. */
      retryAfterMs?: number;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
  get retryable(): boolean {
    return this.options.retryable;
  }
}
