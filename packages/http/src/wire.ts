import { SECRET_CREDENTIALS, type Integration, type Message } from '@tidings/core';

const SDK_FILTER_ON = new Set(['subscriber', 'payload']);

/**
 * An integration as the wire shows it: secret credentials masked unless the server reveals them, and
 * `conditions` left out when they read anything Novu's SDK cannot parse (it only knows `subscriber`
 * and `payload`), rather than sending a body that breaks the client.
 */
export function integrationToWire(integration: Integration, revealSecrets: boolean): Record<string, unknown> {
  const credentials: Record<string, unknown> = { ...integration.credentials };
  if (!revealSecrets) {
    for (const key of SECRET_CREDENTIALS) {
      const value = credentials[key];
      if (typeof value === 'string' && value.length > 0) credentials[key] = `${'*'.repeat(Math.max(0, Math.min(8, value.length - 4)))}${value.slice(-4)}`;
    }
  }
  const { conditions, createdAt, updatedAt, ...rest } = integration;
  const representable = conditions.every((g) => g.children.every((p) => SDK_FILTER_ON.has(p.on)));
  return { ...rest, credentials, ...(representable && { conditions }), createdAt, updatedAt };
}

/** A message on the wire: Novu's members; `template` is left out (the SDK wants the whole workflow). */
export const messageToWire = (message: Message): Record<string, unknown> => ({ ...message });
