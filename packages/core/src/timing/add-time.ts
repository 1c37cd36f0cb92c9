import { addMonths } from 'date-fns';
import { fromZonedTime, toZonedTime } from 'date-fns-tz';
import type { TimeUnit } from '../schemas/index.js';

const UNIT_MS: Record<Exclude<TimeUnit, 'months'>, number> = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 7 * 86_400_000,
};

/**
 * `instant` plus `amount` units. Seconds to weeks are fixed lengths (a week is 7 days); months are
 * calendar months on the wall clock of `timeZone` (UTC when unset), clamped to the month's last day.
 */
export function addTime(instant: Date, amount: number, unit: TimeUnit, timeZone = 'UTC'): Date {
  if (unit !== 'months') return new Date(instant.getTime() + amount * UNIT_MS[unit]);
  const wall = toZonedTime(instant, timeZone);
  const whole = Math.trunc(amount);
  let moved = addMonths(wall, whole);
  const fraction = amount - whole;
  if (fraction > 0) moved = new Date(moved.getTime() + fraction * 30 * UNIT_MS.days);
  return fromZonedTime(moved, timeZone);
}
