import type { ActionStatus, ButtonType, JsonObject, MarkValue, Message } from '../schemas/index.js';

/**
 * The message after marking it, by the rules of Novu's Inbox (its client updates rows optimistically
 * by them, so other rules would make rows flicker). `read` sets read and seen; `seen` sets seen;
 * `unread` clears read and leaves it seen; `unseen` clears both, so "read implies seen" always holds.
 * Marking read or unread takes a message out of the archive. The date of the flag touched moves to
 * `now` (never backwards); the first time a message is seen is kept as `firstSeenDate`.
 */
export function applyMarkAs(message: Message, markAs: MarkValue, now: string): Message {
  const later = (previous: string | undefined) => laterOf(previous, now);
  const seenNow = { seen: true, lastSeenDate: later(message.lastSeenDate), firstSeenDate: message.firstSeenDate ?? now };
  switch (markAs) {
    case 'read':
      return unarchived({ ...message, ...seenNow, read: true, lastReadDate: later(message.lastReadDate) });
    case 'seen':
      return { ...message, ...seenNow };
    case 'unread':
      return unarchived({ ...message, ...seenNow, read: false, lastReadDate: later(message.lastReadDate) });
    case 'unseen':
      return { ...message, read: false, seen: false, lastSeenDate: later(message.lastSeenDate) };
  }
}

function unarchived(message: Message): Message {
  const { archivedAt: _archivedAt, ...rest } = message;
  return { ...rest, archived: false };
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
 * clears `read` (it wins over `read: true`). Setting `read` either way takes it out of the archive.
 */
export function applyMarkFlags(message: Message, flags: MarkFlags, now: string): Message {
  const next: Message = { ...message };
  const see = () => Object.assign(next, { seen: true, lastSeenDate: laterOf(message.lastSeenDate, now), firstSeenDate: message.firstSeenDate ?? now });
  if (flags.read !== undefined) Object.assign(next, { read: flags.read, lastReadDate: laterOf(message.lastReadDate, now) });
  if (flags.seen === true) see();
  if (flags.seen === false) Object.assign(next, { seen: false, read: false, lastSeenDate: laterOf(message.lastSeenDate, now) });
  else if (next.read && !next.seen) see();
  return flags.read === undefined ? next : unarchived(next);
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

/**
 * Archived or back, by Novu's Inbox rules: archiving also reads the message (and so sees it) and
 * records `archivedAt`; unarchiving keeps it read.
 */
export function applyArchive(message: Message, archived: boolean, now: string): Message {
  if (!archived) return unarchived(message);
  const read = message.read ? message : applyMarkAs(message, 'read', now);
  return { ...read, archived: true, archivedAt: message.archived && message.archivedAt ? message.archivedAt : now };
}
