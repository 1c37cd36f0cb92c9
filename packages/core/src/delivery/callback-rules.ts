import { createHash } from 'node:crypto';
import type { Message } from '../schemas/index.js';
import type { ProviderStatusEvent, StatusReading } from './provider.js';

/**
 * Most bytes one report of a status callback may take as stored (its JSON, in UTF-8): held for a
 * message not stored yet, or kept in a message's history. A service's own reports take well under
 * one kilobyte (reasons are cut to 500 characters); a callback with a larger one is refused.
 */
export const MAX_REPORT_BYTES = 4096;

/** Most reports the callbacks of one integration may hold for messages not stored yet; past it, a callback that would hold more is refused. */
export const MAX_HELD_PER_INTEGRATION = 10_000;

/** What `readStatus` answered, as events and the one-time value to check (when the service signs one). */
export const statusReading = (answer: ProviderStatusEvent[] | StatusReading): StatusReading => (Array.isArray(answer) ? { events: answer } : answer);

/** The first report larger than `MAX_REPORT_BYTES` as stored, with its size; undefined when none is. */
export function oversizedReport(reports: readonly ProviderStatusEvent[]): { index: number; bytes: number } | undefined {
  for (const [index, report] of reports.entries()) {
    const bytes = Buffer.byteLength(JSON.stringify(report), 'utf8');
    if (bytes > MAX_REPORT_BYTES) return { index, bytes };
  }
  return undefined;
}

/**
 * The window-hit key that records one integration's use of a signed one-time value. The value is
 * hashed: keys have one length whatever the service sends, and the stored key reveals nothing.
 */
export const onceKey = (integrationId: string, value: string): string => `callback-once:${integrationId}:${createHash('sha256').update(value).digest('hex')}`;

/**
 * Whether a report of this integration's callback may change the message: only one sent through it.
 * A message sent before messages kept their integration, or a report held before reports kept theirs,
 * is matched by provider alone, as it was then.
 */
export const sentThrough = (message: Pick<Message, '_integrationId'>, integrationId: string | undefined): boolean =>
  message._integrationId === undefined || integrationId === undefined || message._integrationId === integrationId;
