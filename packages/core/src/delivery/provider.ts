import type { Channel, Credentials, JsonObject } from '../schemas/index.js';
import type { ProviderStatusEvent } from '../schemas/provider-status.js';
import type { EmailAttachment } from '../schemas/email-attachments.js';

/** Where a message goes, resolved from the subscriber and the integration. */
export interface ProviderRecipient {
  readonly subscriberId: string;
  /** The subscriber's name (first and last), for the address an email is sent to (`"Ada Lovelace" <ada@…>`). */
  readonly name?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly webhookUrl?: string;
  readonly deviceTokens?: readonly string[];
  readonly channel?: string;
}

/** What a chat provider sends to (see `Provider.chatAddress`). */
export type ChatAddress = 'webhookUrl' | 'phone' | 'chatId';

/**
 * Who an email goes to and comes from, as the trigger's `overrides.email` (merged with
 * `overrides[providerId]`'s `to`, `cc`, `bcc`, `from` and `senderName`, as Novu merges them) asks.
 * Addresses are checked and appear once across `to`, `cc` and `bcc` (case aside), first place kept.
 */
export interface EmailAddressing {
  /** Every recipient: the subscriber's address first, then `overrides.email.to`. */
  readonly to: readonly string[];
  /** `overrides.email.cc`; empty when none. */
  readonly cc: readonly string[];
  /** `overrides.email.bcc`; empty when none. */
  readonly bcc: readonly string[];
  /** `overrides.email.from`: replaces the integration's `from` when set. */
  readonly from?: string;
  /** `overrides.email.senderName`: replaces the integration's `senderName` when set. */
  readonly senderName?: string;
  /** `overrides.email.replyTo`: the message's Reply-To (Novu reads it from `overrides.email` only). */
  readonly replyTo?: string;
}

export type { EmailAttachment };

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
  /**
   * `overrides[providerId]` of the trigger, if any. For email, without the members folded into
   * `email` (`to`, `cc`, `bcc`, `from`, `senderName`), so a provider that adds its overrides to the
   * service's request does not send them twice.
   */
  readonly overrides: JsonObject;
  /**
   * Email only (the engine always sets it for email): recipients and sender as the trigger's
   * overrides ask. A provider sends to `email.to`, `email.cc` and `email.bcc`, from `email.from` and
   * `email.senderName` before its integration's own, with `email.replyTo` as Reply-To. Absent, the
   * message goes to `to.email` alone.
   */
  readonly email?: EmailAddressing;
  /**
   * Email only: headers the message carries: the step's `headers`, the trigger's
   * `overrides.email.headers` (and `overrides[providerId].headers`) over them, and one-click
   * unsubscribe's `List-Unsubscribe` and `List-Unsubscribe-Post`. A provider sets them the way its
   * service documents.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Email only: the files the trigger attached (`payload.attachments`, those whose `channels` name
   * email or none). Only a provider with `attachments: true` is given a message that has some.
   */
  readonly attachments?: readonly EmailAttachment[];
  /**
   * Push only: the members a code workflow's push step returned beside `subject` and `body`
   * (`badge`, `sound`, `data`, …). A push provider puts those its service has a field for in the
   * service's payload; the trigger's `overrides` win a clash.
   */
  readonly data?: JsonObject;
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

export type { ProviderStatusEvent } from '../schemas/provider-status.js';

/** A status callback as it reached the server: the raw body, for signatures computed over its bytes. */
export interface ProviderCallback {
  readonly method: string;
  /** The full URL the provider called (some signatures cover it, e.g. Twilio's). */
  readonly url: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

/**
 * What `readStatus` may return instead of the events alone: with them, the one-time value the
 * service's signature covers, where it signs one (Mailgun's `token`). The engine refuses a callback
 * of the integration whose value it took already, and remembers the value until `until`, from when
 * the signed timestamp is too old for the callback to be taken anyway.
 */
export interface StatusReading {
  readonly events: ProviderStatusEvent[];
  readonly once?: { readonly value: string; readonly until: string };
}

/** The provider refused a status callback: not signed, or signed wrongly. Answered 401; nothing changes. */
export class CallbackRefused extends Error {
  override readonly name = 'CallbackRefused';
}

/** What the engine hands a send besides the message. */
export interface SendContext {
  /**
   * Aborted when the engine stops waiting for the send (it timed out): abort the request in flight
   * and start no more work, such as the next chunk of device tokens. Whatever the send does after it
   * is thrown away.
   */
  readonly signal?: AbortSignal;
  /**
   * The same on every attempt at this message (its retries, a run again after a crash): a UUID made
   * from the environment and the message id (see `idempotencyKeyOf`). A provider whose service
   * documents an idempotency key sends it as that key and says so with `Provider.idempotent`. A
   * `tidings.retry` run of a message that failed for good has a key of its own.
   */
  readonly idempotencyKey?: string;
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
  /**
   * The service documents an idempotency key and `send` passes `context.idempotencyKey` as it (Resend's
   * `Idempotency-Key` header, OneSignal's `idempotency_key`): the service answers a request again with
   * the same key without sending the message twice. A send of such a provider that timed out is tried
   * again as any retryable failure; one of a provider without it may have been sent, so its message is
   * kept with `outcome: 'unknown'` and sent again at most once, much later (`UNKNOWN_OUTCOME_RETRY_MS`).
   * @default false
   */
  readonly idempotent?: boolean;
  /**
   * Email only: `send` sends `ProviderMessage.attachments`. An integration whose provider does not is
   * passed over for a message with attachments (the next one of the channel is tried; with none left
   * the message is not sent, saying why), so no file is dropped without a word. @default false
   */
  readonly attachments?: boolean;
  /**
   * Closes what the provider keeps open between sends (pooled connections). The engine calls it when
   * it stops; a send after it opens anew.
   */
  close?(): Promise<void>;
  send(message: ProviderMessage, credentials: Credentials, context?: SendContext): Promise<ProviderResult>;
  /**
   * Reads one status callback of the service: checks it is signed as the service signs it (throws
   * `CallbackRefused` when not) and returns what it reports, one event per message and change
   * (empty for kinds of event Tidings does not track). `integration` holds the credentials and the
   * webhook signing key (`configurations.inboundWebhookSigningKey`), and `now`, the engine clock's
   * time, that signed timestamps are checked against (the current time when absent). A service that
   * signs a one-time value returns it with the events (`StatusReading`).
   */
  readStatus?(callback: ProviderCallback, integration: { credentials: Credentials; signingKey?: string; now?: Date }): Promise<ProviderStatusEvent[] | StatusReading>;
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
