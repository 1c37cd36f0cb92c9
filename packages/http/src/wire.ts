import type { Integration, Message } from '@tidings/core';

const SDK_FILTER_ON = new Set(['subscriber', 'payload']);

/**
 * An integration as the wire shows it to API-key callers. Credentials are write-only, as Novu made
 * them after its credential-exposure fix (GHSA-rgr9-mpmj-mpw8): lists answer `credentials: {}` (the
 * SDK's schema needs the object), the answers to a create, an update or set-primary leave the member
 * out. The status callbacks' signing key (`configurations.inboundWebhookSigningKey`) is a secret too,
 * and write-only the same way: it is never answered (the SDK's schema has it optional). `conditions`
 * are left out when they read anything Novu's SDK cannot parse (it knows only `subscriber` and
 * `payload`), rather than sending a body that breaks the client.
 */
export function integrationToWire(integration: Integration, credentials: 'empty' | 'omitted'): Record<string, unknown> {
  const { conditions, createdAt, updatedAt, credentials: _secret, configurations, ...rest } = integration;
  const representable = conditions.every((g) => g.children.every((p) => SDK_FILTER_ON.has(p.on)));
  const { inboundWebhookSigningKey: _signingKey, ...shown } = configurations ?? {};
  return { ...rest, ...(configurations && { configurations: shown }), ...(credentials === 'empty' && { credentials: {} }), ...(representable && { conditions }), createdAt, updatedAt };
}

/** A message on the wire: Novu's members; `template` is left out (the SDK wants the whole workflow). */
export const messageToWire = (message: Message): Record<string, unknown> => ({ ...message });
