import { z } from 'zod';
import { isoInstantSchema } from './enums.js';

export const suppressionChannelSchema = z.enum(['email', 'sms']);

/**
 * An address as the suppression list keys it: an email trimmed and in lower case; a phone number
 * without spaces, dots, dashes and parentheses (`+1 (555) 010-0100` is `+15550100100`).
 */
export const normalAddress = (channel: 'email' | 'sms', address: string) => (channel === 'email' ? address.trim().toLowerCase() : address.replace(/[\s().-]/g, ''));

/** An address that is not sent to: it bounced for good, complained, or was added by hand. */
export const suppressionSchema = z.object({
  channel: suppressionChannelSchema,
  address: z.string(),
  /** `bounced`, `complained` and `failed` come from provider reports; `manual` from `suppressions.add`. */
  reason: z.enum(['bounced', 'complained', 'failed', 'manual']),
  /** The provider's words, or the caller's note. */
  detail: z.string().optional(),
  at: isoInstantSchema,
  /** The message whose report put it there. */
  messageId: z.string().optional(),
});
export type Suppression = z.infer<typeof suppressionSchema>;

/** What `suppressions.add` takes. */
export const suppressionInputSchema = z.strictObject({
  channel: suppressionChannelSchema,
  address: z.string().trim().min(3, 'must be an email address or a phone number').max(320),
  detail: z.string().max(500).optional(),
});
export type SuppressionInput = z.input<typeof suppressionInputSchema>;
