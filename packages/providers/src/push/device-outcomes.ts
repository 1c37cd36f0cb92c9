import { ProviderError, type ProviderResult } from '@tidings/core';

/** A push result: the id, and the device tokens the service says are gone for good. */
export type PushResult = ProviderResult;

/** How the send to one device token went. */
export type DeviceOutcome = { token: string; id: string } | { token: string; error: ProviderError; dead: boolean };

/**
 * Sent when one device took the message (with the dead tokens named); else the error worth the most:
 * a retryable one when a later try may pass, carrying the dead tokens too.
 */
export function settleDevices(outcomes: readonly DeviceOutcome[]): PushResult {
  const invalidTokens = outcomes.flatMap((o) => ('error' in o && o.dead ? [o.token] : []));
  const sent = outcomes.find((o): o is Extract<DeviceOutcome, { id: string }> => 'id' in o);
  if (sent) return { id: sent.id, ...(invalidTokens.length > 0 && { invalidTokens }) };
  const errors = outcomes.flatMap((o) => ('error' in o ? [o.error] : []));
  const error = errors.find((e) => e.retryable) ?? errors[0]!;
  if (invalidTokens.length === 0) throw error;
  throw new ProviderError(error.message, { ...error.options, invalidTokens });
}
