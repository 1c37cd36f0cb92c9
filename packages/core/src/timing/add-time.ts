import type { TimeUnit } from '../schemas/index.js';
import { instantsAtWall, zoneOffset } from '../schedule/wall-clock.js';

const UNIT_MS: Record<Exclude<TimeUnit, 'months'>, number> = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 7 * 86_400_000,
};

/** Whole calendar months added to a wall-clock date-time (as UTC fields), clamped to the month's end. */
function addWallMonths(wallMs: number, months: number): number {
  const d = new Date(wallMs);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime() + (wallMs - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/**
 * `instant` plus `amount` units. Seconds to weeks are fixed lengths (a week is 7 days); months are
 * calendar months on the wall clock of `timeZone` (UTC when unset), clamped to the month's last day;
 * a fractional month adds its share of 30 days.
 */
export function addTime(instant: Date, amount: number, unit: TimeUnit, timeZone = 'UTC'): Date {
  if (unit !== 'months') return new Date(instant.getTime() + amount * UNIT_MS[unit]);
  const t = instant.getTime();
  const whole = Math.trunc(amount);
  const wall = addWallMonths(t + zoneOffset(t, timeZone), whole);
  const moved = instantsAtWall(wall, timeZone)[0]!;
  return new Date(moved + (amount - whole) * 30 * UNIT_MS.days);
}
