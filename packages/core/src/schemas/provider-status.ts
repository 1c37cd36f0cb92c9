/** What a provider's status callback said happened to one message it accepted. */
export interface ProviderStatusEvent {
  /** The provider's id of the message, as `send` returned it (`ProviderResult.id`). */
  readonly providerMessageId: string;
  readonly state: 'delivered' | 'bounced' | 'complained' | 'opened' | 'clicked' | 'failed';
  /** When it happened, as the provider says (ISO). */
  readonly at: string;
  /** The provider's id of this event, or one made from its content: the same callback twice has the same id. */
  readonly eventId: string;
  /** Bounces: whether the address is gone for good (`hard`) or may take mail later (`soft`). */
  readonly bounce?: 'hard' | 'soft';
  /** Failures: the carrier or service says the address will never take a message (an SMS to a landline). */
  readonly permanent?: boolean;
  /** The provider's reason or code, as text. */
  readonly reason?: string;
  /** The recipient address the event is about (email or phone), when the callback names it. */
  readonly address?: string;
}
