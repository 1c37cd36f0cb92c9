import type { Message, Notification, Ttl } from '../schemas/index.js';
import { addTime } from '../timing/add-time.js';

/** Expired at `now`: its `expiresAt` has come. An expired message is gone for every reader. */
export const isExpired = (message: Pick<Message, 'expiresAt'>, now: string): boolean => message.expiresAt !== undefined && message.expiresAt <= now;

/** When a message made at `createdAt` expires: the earlier of the trigger's `expiresAt` and `createdAt + ttl`; undefined when neither is set. */
export function expiryOf(triggerExpiresAt: string | undefined, ttl: Ttl | undefined, createdAt: string): string | undefined {
  const fromTtl = ttl === undefined ? undefined : addTime(new Date(createdAt), ttl.amount, ttl.unit).toISOString();
  if (fromTtl === undefined) return triggerExpiresAt;
  return triggerExpiresAt === undefined || fromTtl < triggerExpiresAt ? fromTtl : triggerExpiresAt;
}

/**
 * The message with its expiry: in-app messages only (the feed's; other channels' records are the
 * account of a send, kept under the retention policy). Another channel's message comes back as is.
 */
export function withExpiry(message: Message, notification: Pick<Notification, 'expiresAt'>, ttl?: Ttl): Message {
  if (message.channel !== 'in_app') return message;
  const expiresAt = expiryOf(notification.expiresAt, ttl, message.createdAt);
  return expiresAt === undefined ? message : { ...message, expiresAt };
}

/** The earliest `expiresAt` among messages; undefined when none expires. */
export function earliestExpiry(messages: readonly Pick<Message, 'expiresAt'>[]): string | undefined {
  let earliest: string | undefined;
  for (const { expiresAt } of messages) if (expiresAt !== undefined && (earliest === undefined || expiresAt < earliest)) earliest = expiresAt;
  return earliest;
}
