import { z } from 'zod';
import { emailHeadersSchema } from './email-headers.js';

/** Most addresses one of `to`, `cc` or `bcc` of a trigger's email overrides may hold (Resend's and Postmark's limit per message). */
export const MAX_EMAIL_OVERRIDE_ADDRESSES = 50;

const addressSchema = z.email({ error: 'must be an email address such as "ada@example.com"' }).max(320, 'must be at most 320 characters');

/** One address or a list of them, as Novu's providers take either: always a list after parsing. */
const addressListSchema = z
  .union([addressSchema, z.array(addressSchema).max(MAX_EMAIL_OVERRIDE_ADDRESSES, `must hold at most ${MAX_EMAIL_OVERRIDE_ADDRESSES} addresses`)], {
    error: 'must be an email address or an array of them',
  })
  .transform((value) => (typeof value === 'string' ? [value] : value));

/**
 * The addressing members of a trigger's `overrides.email` (Novu's `IEmailOverrides`), checked: `to`,
 * `cc` and `bcc` lists of addresses (one address is taken as a list of one), `from` and `replyTo` an
 * address, `senderName` text. Its other members (`integrationIdentifier`, `customData`, …) are kept
 * as given.
 */
export const emailOverridesSchema = z.looseObject({
  to: addressListSchema.optional(),
  cc: addressListSchema.optional(),
  bcc: addressListSchema.optional(),
  from: addressSchema.optional(),
  senderName: z.string({ error: 'must be text' }).max(256, 'must be at most 256 characters').optional(),
  replyTo: addressSchema.optional(),
  /** Custom headers (`{ "X-Campaign": "spring" }`), over the step's. */
  headers: emailHeadersSchema.optional(),
});
export type EmailOverrides = z.output<typeof emailOverridesSchema>;

/** The members of `overrides.email` Novu also reads from `overrides[providerId]` (its merge of the two): not `replyTo`. */
export const PROVIDER_ADDRESSING_MEMBERS = ['to', 'cc', 'bcc', 'from', 'senderName', 'headers'] as const;

/**
 * A trigger's `overrides`: any object, whose `email` member, when present, is checked as
 * `emailOverridesSchema` (the overrides are kept as given; delivery reads them again).
 */
export const triggerOverridesSchema = z.record(z.string(), z.unknown()).superRefine((overrides, ctx) => {
  if (!('email' in overrides) || overrides['email'] === undefined) return;
  const email = overrides['email'];
  if (typeof email !== 'object' || email === null || Array.isArray(email)) {
    ctx.addIssue({ code: 'custom', path: ['email'], message: 'must be an object (`to`, `cc`, `bcc`, `from`, `senderName`, `replyTo`, `headers`, `integrationIdentifier`)' });
    return;
  }
  const parsed = emailOverridesSchema.safeParse(email);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['email', ...issue.path], message: issue.message });
});
