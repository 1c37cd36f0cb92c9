import { createHash } from 'node:crypto';
import type { TriggerResult } from '@tidings/core';
import type { IdempotentRequest } from './context.js';

/** A UUID (version 8, RFC 9562) made from the environment, the keyed request and the event's place. */
function derivedTransactionId(env: string, request: IdempotentRequest, index: number): string {
  const hex = createHash('sha256').update([env, request.key, request.since, request.fingerprint, index].join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Triggers under an idempotency key are exactly once even when a first attempt committed but its
 * answer was lost (a dropped connection, a crash after the commit): the key's record was released
 * then, so the client's retry runs again. Events without a transactionId get one derived from the
 * key's use (key, first start, body), so the retry finds the stored notification, and its
 * `duplicate_transaction_id` is answered as the first attempt was: processed, with that transactionId.
 * Once the key's record has expired (24 h), the same key starts a new use and triggers anew.
 */
export async function keyedTriggers(
  env: string,
  request: IdempotentRequest | undefined,
  events: readonly unknown[],
  trigger: (events: readonly unknown[]) => Promise<TriggerResult[]>,
): Promise<TriggerResult[]> {
  if (request === undefined) return trigger(events);
  const derived = new Set<number>();
  const keyed = events.map((event, index) => {
    if (typeof event !== 'object' || event === null || Array.isArray(event) || (event as { transactionId?: unknown }).transactionId !== undefined) return event;
    derived.add(index);
    return { ...event, transactionId: derivedTransactionId(env, request, index) };
  });
  const results = await trigger(keyed);
  return results.map((result, index) =>
    derived.has(index) && result.status === 'error' && result.error?.length === 1 && result.error[0] === 'duplicate_transaction_id'
      ? { acknowledged: true, status: 'processed', transactionId: result.transactionId ?? derivedTransactionId(env, request, index) }
      : result,
  );
}
