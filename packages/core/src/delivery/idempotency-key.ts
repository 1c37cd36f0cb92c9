import { createHash } from 'node:crypto';

/** The namespace of the keys (a random UUID of Tidings' own), so they share no value with other name-based UUIDs. */
const NAMESPACE = Buffer.from('5c7b0a8e3f2d4e6a9b1c0d2e3f4a5b6c', 'hex');

/**
 * The idempotency key of one message's sends (`SendContext.idempotencyKey`): a name-based UUID
 * (version 5 layout, SHA-1) of the environment and the message id, and of `round` when a
 * `tidings.retry` run sends again a message that failed for good (a service that keeps its answer
 * under the key would give the old refusal back). A UUID because some services take nothing else
 * (OneSignal); the same inputs give the same key in every process, so a retry, or a run again after a
 * crash, asks the service with the key of the first try.
 */
export function idempotencyKeyOf(environmentId: string, messageId: string, round?: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`${environmentId}\u0000${messageId}${round === undefined ? '' : `\u0000${round}`}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
