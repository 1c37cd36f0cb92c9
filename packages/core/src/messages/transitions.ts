import type { ActionStatus, ButtonType, JsonObject, MarkValue, Message } from '../schemas/index.js';

/**
 * The message after marking it. `read` sets read and seen; `seen` sets seen; `unread` clears read and
 * leaves it seen; `unseen` clears both, so "read implies seen" always holds. The date of the flag
 * touched moves to `now` (never backwards).
 */
export function applyMarkAs(message: Message, markAs: MarkValue, now: string): Message {
  const later = (previous: string | undefined) => laterOf(previous, now);
  switch (markAs) {
    case 'read':
      return { ...message, read: true, seen: true, lastReadDate: later(message.lastReadDate), lastSeenDate: later(message.lastSeenDate) };
    case 'seen':
      return { ...message, seen: true, lastSeenDate: later(message.lastSeenDate) };
    case 'unread':
      return { ...message, read: false, seen: true, lastReadDate: later(message.lastReadDate) };
    case 'unseen':
      return { ...message, read: false, seen: false, lastSeenDate: later(message.lastSeenDate) };
  }
}

/** A flag's date moves to `now`, never backwards. */
const laterOf = (previous: string | undefined, now: string) => (previous !== undefined && previous > now ? previous : now);

/** Flags to set as Novu's older clients give them: `{ seen?, read? }`. */
export interface MarkFlags {
  readonly seen?: boolean;
  readonly read?: boolean;
}

/**
 * The message with the flags given set and the others kept, the date of each flag given moving to
 * `now`. "Read implies seen" still holds: reading an unseen message also sees it, and `seen: false`
 * clears `read` (it wins over `read: true`).
 */
export function applyMarkFlags(message: Message, flags: MarkFlags, now: string): Message {
  const next: Message = { ...message };
  if (flags.read !== undefined) Object.assign(next, { read: flags.read, lastReadDate: laterOf(message.lastReadDate, now) });
  if (flags.seen !== undefined) Object.assign(next, { seen: flags.seen, lastSeenDate: laterOf(message.lastSeenDate, now) });
  if (flags.seen === false) next.read = false;
  else if (next.read && !next.seen) Object.assign(next, { seen: true, lastSeenDate: laterOf(message.lastSeenDate, now) });
  return next;
}

/** The message after a CTA button action: the action's status and result change; read/seen do not. */
export function applyAction(message: Message, type: ButtonType, status: ActionStatus, payload: JsonObject = {}): Message {
  return {
    ...message,
    cta: {
      ...message.cta,
      action: { ...message.cta.action, status, result: { type, payload } },
    },
  };
}

/** Snoozed: hidden from the feed until `until`. */
export function applySnooze(message: Message, until: string): Message {
  return { ...message, snoozedUntil: until };
}

/**
 * Back from a snooze (when it expires, or at once): shown again as new — unseen and unread, with a
 * new delivery date.
 */
export function applyUnsnooze(message: Message, now: string): Message {
  const { snoozedUntil: _snoozed, ...rest } = message;
  return { ...rest, seen: false, read: false, deliveredAt: [...message.deliveredAt, now] };
}

export function applyArchive(message: Message, archived: boolean): Message {
  return { ...message, archived };
}
