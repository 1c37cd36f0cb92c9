import type { DigestMetadata, TimeUnit } from '../schemas/index.js';
import { instantsAtWall, wallTime, zoneOffset } from '../schedule/wall-clock.js';
import { chooseCadence } from '../digests/cadence-choice.js';
import { addTime } from './add-time.js';
import { nextCadenceTime } from './cadence-due-at.js';
import { nextCronTime, parseCron } from './cron.js';
import { dayMatches, secondsOfDay, type TimedRule } from './timed-rule.js';

const DAY = 86_400_000;
/** How far ahead a timed rule is searched: enough for "the 5th Sunday, every 12 months". */
const SEARCH_DAYS = 366 * 6;

/** The next instant strictly after `after` at which a timed rule fires, on the wall clock of `timeZone`. */
export function nextTimedOccurrence(rule: TimedRule, after: Date, timeZone = 'UTC'): Date | null {
  const t = after.getTime();
  const nowWall = t + zoneOffset(t, timeZone);
  const start = wallTime(t, timeZone).dayMs;
  const seconds = secondsOfDay(rule);
  for (let day = start; day <= start + SEARCH_DAYS * DAY; day += DAY) {
    if (!dayMatches(rule, day)) continue;
    for (const second of seconds) {
      // Only wall times still ahead of the clock count, so an hour repeated when clocks fall back
      // fires once; a wall time skipped by a DST jump fires at the first instant after the jump.
      const wall = day + second * 1000;
      if (wall <= nowWall) continue;
      const instant = instantsAtWall(wall, timeZone).find((i) => i > t);
      if (instant !== undefined) return new Date(instant);
    }
  }
  return null;
}

export interface DigestTiming {
  /** When the digest opened (its first event). */
  readonly openedAt: Date;
  /** The event being added now. */
  readonly now: Date;
  readonly timeZone?: string | null;
  /** The trigger's `overrides.delay`, replacing amount and unit of regular digests. */
  readonly override?: { amount: number; unit: TimeUnit } | null;
  /** The id of the cadence the subscriber chose for the workflow (preference digests). */
  readonly cadenceChoice?: string | undefined;
}

/**
 * When a digest fires. Regular and backoff: `amount unit` after it opened, or after `now` with
 * `updateMode` (each join moves it). Timed: the next occurrence of the rule strictly after it opened,
 * in the subscriber's zone. Preference: the next time of the subscriber's cadence (`cadenceChoice`
 * when the step offers it, else its default) after it opened. Null when a timed rule never fires or
 * the cadence is `instant`.
 */
export function digestDueAt(metadata: DigestMetadata, timing: DigestTiming): Date | null {
  const zone = timing.timeZone ?? 'UTC';
  if (metadata.type === 'timed') {
    if (metadata.cron !== undefined) {
      const schedule = parseCron(metadata.cron);
      return 'error' in schedule ? null : nextCronTime(schedule, timing.openedAt, zone);
    }
    return nextTimedOccurrence({ unit: metadata.unit ?? 'days', amount: metadata.amount ?? 1, config: metadata.timed ?? {} }, timing.openedAt, zone);
  }
  if (metadata.type === 'preference') return nextCadenceTime(chooseCadence(metadata, timing.cadenceChoice).choice, timing.openedAt, zone);
  const amount = timing.override?.amount ?? metadata.amount ?? 0;
  const unit = timing.override?.unit ?? metadata.unit ?? 'minutes';
  return addTime(metadata.updateMode ? timing.now : timing.openedAt, amount, unit, zone);
}

/** Whether a digest step sends an event at once when its key has been quiet (backoff). */
export const usesBackoff = (metadata: DigestMetadata): boolean => metadata.type === 'backoff' || (metadata.type === 'regular' && metadata.backoff === true);

/**
 * Backoff digests send an event at once when none of the same key came within the backoff window
 * before it; otherwise it is digested. True means "skip the digest".
 */
export function backoffLetsThrough(metadata: DigestMetadata, previousEventAt: string | null, now: Date, timeZone?: string | null): boolean {
  if ((metadata.type !== 'regular' && metadata.type !== 'backoff') || !usesBackoff(metadata)) return false;
  if (previousEventAt === null) return true;
  const windowEnd = addTime(new Date(previousEventAt), metadata.backoffAmount ?? metadata.amount ?? 0, metadata.backoffUnit ?? metadata.unit ?? 'minutes', timeZone ?? 'UTC');
  return windowEnd.getTime() < now.getTime();
}
