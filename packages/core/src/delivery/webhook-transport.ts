/**
 * One webhook delivery attempt as the engine hands it to the transport: the transport signs and
 * sends it, with the wall-clock time it sends at as `webhook-timestamp` (receivers refuse old ones).
 */
export interface WebhookRequest {
  readonly url: string;
  /** The endpoint's Standard Webhooks secret (`whsec_…`). */
  readonly secret: string;
  /** The delivery's id: `webhook-id`, the same on every attempt. */
  readonly id: string;
  /** The JSON body, exactly as sent and signed. */
  readonly body: string;
}

/**
 * Sends signed webhook deliveries (`@tidings/providers`' `webhookTransport` signs them as Standard
 * Webhooks says and keeps the address guard). Resolves with the receiver's status, whatever it is;
 * throws when the receiver could not be reached (the attempt counts as failed).
 */
export type WebhookTransport = (request: WebhookRequest) => Promise<{ readonly status: number }>;
