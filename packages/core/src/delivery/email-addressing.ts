import { PROVIDER_ADDRESSING_MEMBERS, emailOverridesSchema, normalAddress, type EmailOverrides, type JsonObject } from '../schemas/index.js';
import { issuesOf } from '../validation.js';
import type { EmailAddressing } from './provider.js';

export type EmailAddressingResult =
  | { ok: true; email: EmailAddressing; overrides: JsonObject; headers: Readonly<Record<string, string>> }
  | { ok: false; reason: string };

const objectOr = (value: unknown): JsonObject => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {});

/** Checks one overrides object as email overrides; the reason names each bad field under `at`. */
function checked(value: JsonObject, at: string): { ok: true; value: EmailOverrides } | { ok: false; reason: string } {
  const parsed = emailOverridesSchema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, reason: issuesOf(parsed.error, at).map((i) => `${i.path}: ${i.message}`).join('; ') };
}

/**
 * The addressing of an email sent through `providerId` to `recipient` (the subscriber's address), as
 * Novu's email step builds it: `overrides.email` with `overrides[providerId]`'s `to`, `cc`, `bcc`,
 * `from` and `senderName` over it; `to` adds to the recipient, `cc` and `bcc` are added, `from` and
 * `senderName` replace the integration's, `replyTo` (from `overrides.email` only) sets Reply-To. An
 * address given twice across the lists is sent to once, in its first place. `cc` and `bcc` may come
 * from the step too (`base`), before the overrides' own. Also returns the custom headers
 * (`overrides[providerId].headers` over `overrides.email.headers`) and the provider's overrides
 * without the members folded in. Not ok when a member is not an address (the trigger checks
 * `overrides.email`; `overrides[providerId]` is only known to be an email provider's here).
 */
export function emailAddressing(overrides: JsonObject, providerId: string, recipient: string, base: { cc?: readonly string[]; bcc?: readonly string[] } = {}): EmailAddressingResult {
  const own = objectOr(overrides[providerId]);
  const picked: JsonObject = {};
  const rest: JsonObject = {};
  for (const [key, value] of Object.entries(own)) {
    if ((PROVIDER_ADDRESSING_MEMBERS as readonly string[]).includes(key)) picked[key] = value;
    else rest[key] = value;
  }
  const email = checked(objectOr(overrides['email']), 'overrides.email');
  if (!email.ok) return email;
  const provider = checked(picked, `overrides.${providerId}`);
  if (!provider.ok) return provider;
  const merged = { ...email.value, ...provider.value };

  const seen = new Set<string>();
  const once = (addresses: readonly string[] | undefined) =>
    (addresses ?? []).filter((address) => {
      const key = normalAddress('email', address);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const to = once([recipient, ...(merged.to ?? [])]);
  const cc = once([...(base.cc ?? []), ...(merged.cc ?? [])]);
  const bcc = once([...(base.bcc ?? []), ...(merged.bcc ?? [])]);
  return {
    ok: true,
    email: {
      to,
      cc,
      bcc,
      ...(merged.from !== undefined && { from: merged.from }),
      ...(merged.senderName !== undefined && merged.senderName !== '' && { senderName: merged.senderName }),
      ...(email.value.replyTo !== undefined && { replyTo: email.value.replyTo }),
    },
    overrides: rest,
    headers: { ...email.value.headers, ...provider.value.headers },
  };
}
