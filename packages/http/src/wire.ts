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

/**
 * A message as an item of the v1 feed (`GET /v1/subscribers/{id}/notifications/feed`), which
 * `@novu/api` checks as its `NotificationFeedItemDto`: `_jobId` is required there, and Tidings keeps no
 * job on a message, so it is an empty string; neither `_templateId` nor `_messageTemplateId` may be
 * null there, so a message without a workflow id answers `""` and one of a step without a template id
 * leaves `_messageTemplateId` out.
 */
export function feedItemToWire(message: Message): Record<string, unknown> {
  const { _messageTemplateId, _templateId, ...rest } = message;
  return { ...rest, _templateId: _templateId ?? '', ...(_messageTemplateId !== null && { _messageTemplateId }), _jobId: '' };
}
