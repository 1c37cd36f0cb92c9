import { WEEKDAYS, type Schedule } from '../schemas/index.js';
import { parseClockTime } from './clock-time.js';
import { DAY, fallBacks, instantsAtWallTime, wallTime } from './wall-clock.js';

/** A day's opening hours in minutes of the day; `end < start` runs past midnight. */
interface Range {
  readonly start: number;
  readonly end: number;
}

/** Ranges per weekday (0 = Monday); a day counts only when enabled and given at least one range. */
function rangesByDay(schedule: Schedule): Range[][] {
  return WEEKDAYS.map((day) => {
    const entry = schedule.weeklySchedule?.[day];
    if (!entry?.isEnabled || !entry.hours?.length) return [];
    return entry.hours.flatMap((h) => {
      const start = parseClockTime(h.start);
      const end = parseClockTime(h.end);
      return start === null || end === null ? [] : [{ start, end }];
    });
  });
}

/** True when the schedule restricts delivery at all: enabled, with a weekly schedule. */
export function scheduleApplies(schedule: Schedule | null | undefined): schedule is Schedule {
  return !!schedule && schedule.isEnabled && schedule.weeklySchedule !== undefined;
}

function withinRanges(days: Range[][], instantMs: number, timeZone: string): boolean {
  const { weekday, minute } = wallTime(instantMs, timeZone);
  for (const { start, end } of days[weekday]!) {
    if (start <= end ? start <= minute && minute <= end : minute >= start) return true;
  }
  for (const { start, end } of days[(weekday + 6) % 7]!) {
    if (end < start && minute <= end) return true;
  }
  return false;
}

/**
 * Whether deliveries may happen at `instant` under a weekly schedule read on the wall clock of
 * `timeZone` (UTC when unset). No schedule, a disabled one, or one without `weeklySchedule` never
 * restricts. Ranges are inclusive at minute precision; a range ending before it starts runs overnight.
 */
export function isWithinSchedule(schedule: Schedule | null | undefined, instant: Date, timeZone?: string | null): boolean {
  if (!scheduleApplies(schedule)) return true;
  return withinRanges(rangesByDay(schedule), instant.getTime(), timeZone ?? 'UTC');
}

/**
 * The first instant at or after `instant` within the schedule: `instant` itself when it is within,
 * else the next range opening (a range starting in a skipped DST hour opens at the first valid instant
 * after it, and where clocks fall back into a range, the schedule opens at that instant). Null when
 * the schedule never opens (no enabled day with hours).
 */
export function nextScheduleOpening(schedule: Schedule | null | undefined, instant: Date, timeZone?: string | null): Date | null {
  if (!scheduleApplies(schedule)) return instant;
  const zone = timeZone ?? 'UTC';
  const days = rangesByDay(schedule);
  const t = instant.getTime();
  if (withinRanges(days, t, zone)) return instant;
  const { dayMs } = wallTime(t, zone);
  let best: number | null = null;
  for (let offset = -1; offset <= 8; offset++) {
    const day = dayMs + offset * DAY;
    const weekday = (new Date(day).getUTCDay() + 6) % 7;
    for (const range of days[weekday]!) {
      for (const candidate of instantsAtWallTime(day, range.start, zone)) {
        if (candidate > t && (best === null || candidate < best) && withinRanges(days, candidate, zone)) best = candidate;
      }
    }
  }
  // Where clocks fall back, a wall time left behind comes again: the schedule may reopen at that instant, with no range starting there.
  for (const candidate of fallBacks(t, t + 9 * DAY, zone)) {
    if (candidate > t && (best === null || candidate < best) && withinRanges(days, candidate, zone)) best = candidate;
  }
  return best === null ? null : new Date(best);
}

