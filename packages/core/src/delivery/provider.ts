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

/** What a chat provider sends to (see `Provider.chatAddress`). */
export type ChatAddress = 'webhookUrl' | 'phone' | 'chatId';

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
  /**
   * Push only: device tokens the service says are gone for good (unregistered, or not a token of
   * this app). The engine removes them from the subscriber's channel settings in the delivery's commit.
   */
  readonly invalidTokens?: readonly string[];
}

/**
 * A delivery provider: `id` is the integration `providerId` it serves. `send` resolves when the
 * provider accepted the message and throws `ProviderError` when it did not.
 */
export interface Provider {
  readonly id: string;
  readonly channel: Channel;
  /**
   * Chat only: where a send goes. `webhookUrl` (the default): the subscriber's channel setting's
   * webhook URL, else the integration's; `phone`: the subscriber's phone (WhatsApp); `chatId`: the
   * `channel` of the subscriber's channel setting for the provider (a Telegram chat id).
   */
  readonly chatAddress?: ChatAddress;
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
      /** Push only: device tokens found gone for good, even though the send failed (see ProviderResult). */
      invalidTokens?: readonly string[];
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
  get retryable(): boolean {
    return this.options.retryable;
  }
}
