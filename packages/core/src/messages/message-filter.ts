import type { Message } from '../schemas/index.js';
import { contextKeyText } from '../contexts/context-keys.js';
import type { MessageFilter } from '../schemas/message-filter.js';
import { isExpired } from './expiry.js';

/** Equality of two JSON values, member by member (the order of object keys does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Snoozed at `now`: hidden until a time still to come. */
export const isSnoozed = (message: Pick<Message, 'snoozedUntil'>, now: string) => message.snoozedUntil !== undefined && message.snoozedUntil > now;

/**
 * Whether a message matches a filter: the reference every storage backend follows (the memory backend
 * uses it, the SQL backends translate it, and the conformance suite holds them to it). A message
 * expired at `filter.now` matches no filter.
 */
export function messageMatches(message: Message, filter: MessageFilter): boolean {
  const data = message.data ?? {};
  return (
    !isExpired(message, filter.now) &&
    (filter.channel === undefined || message.channel === filter.channel) &&
    (filter.read === undefined || message.read === filter.read) &&
    (filter.seen === undefined || message.seen === filter.seen) &&
    (filter.archived === undefined || message.archived === filter.archived) &&
    (filter.snoozed === undefined || isSnoozed(message, filter.now) === filter.snoozed) &&
    (filter.tags === undefined || filter.tags.every((group) => group.some((tag) => message.tags.includes(tag)))) &&
    (filter.severity === undefined || filter.severity.includes(message.severity ?? 'none')) &&
    (filter.data === undefined || Object.entries(filter.data).every(([key, value]) => Object.prototype.hasOwnProperty.call(data, key) && sameJson(data[key], value))) &&
    (filter.context === undefined || contextKeyText(message.contextKeys) === filter.context) &&
    (filter.createdGte === undefined || message.createdAt >= filter.createdGte) &&
    (filter.createdLte === undefined || message.createdAt <= filter.createdLte)
  );
}
