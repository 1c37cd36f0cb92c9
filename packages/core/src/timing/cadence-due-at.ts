import { WEEKDAYS, type CadenceChoice } from '../schemas/index.js';
import { DAY, instantsAtWall, zoneOffset } from '../schedule/wall-clock.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;

const minuteOfDay = (atTime: string) => Number(atTime.slice(0, 2)) * 60 + Number(atTime.slice(3, 5));

/**
 * The wall-clock times a cadence names (local date-times written as if UTC, in ms), ascending, from
 * the first one after `fromWall`: enough of them that one is sure to come after the clock, whatever
 * the zone's transitions do.
 */
function* cadenceWalls(choice: Exclude<CadenceChoice, { cadence: 'instant' }>, fromWall: number): Generator<number> {
  if (choice.cadence === 'hourly') {
    const first = Math.floor(fromWall / HOUR) * HOUR + HOUR;
    for (let k = 0; k < 4; k++) yield first + k * HOUR;
    return;
  }
  const at = minuteOfDay(choice.atTime) * MINUTE;
  const today = Math.floor(fromWall / DAY) * DAY;
  for (let d = 0; d <= 15; d++) {
    const day = today + d * DAY;
    if (choice.cadence === 'weekly' && WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7] !== choice.weekDay) continue;
    if (day + at > fromWall) yield day + at;
  }
}

/**
 * When a digest window opened at `after` closes, for a cadence on the wall clock of `timeZone`; null
 * for `instant`, which opens no window.
 *
 * A cadence names wall-clock times: every whole hour (`hourly`), `atTime` every day (`daily`), or
 * `atTime` on `weekDay` (`weekly`). The window closes at the first instant strictly after `after` at
 * which the clock first reaches the next of those times: a time that clocks springing forward skip
 * closes it at the instant of the jump; a time that clocks falling back repeat closes it at its
 * first occurrence only (a window never closes on the repeat). So it is never more than a week and
 * the zone's largest shift away.
 */
export function nextCadenceTime(choice: CadenceChoice, after: Date, timeZone = 'UTC'): Date | null {
  if (choice.cadence === 'instant') return null;
  const t = after.getTime();
  const nowWall = t + zoneOffset(t, timeZone);
  for (const wall of cadenceWalls(choice, nowWall)) {
    // The first instant at which the clock reaches `wall`: its first occurrence, or the jump over it.
    const first = instantsAtWall(wall, timeZone)[0]!;
    if (first > t) return new Date(first);
  }
  throw new Error(`nextCadenceTime: no ${choice.cadence} time after ${after.toISOString()} in ${timeZone}`);
}

/** A cadence as `explain` names it: `daily at 09:00 Europe/Paris`. */
export function describeCadence(choice: CadenceChoice, timeZone = 'UTC'): string {
  switch (choice.cadence) {
    case 'instant':
      return 'each event on its own';
    case 'hourly':
      return `hourly, on the hour ${timeZone}`;
    case 'daily':
      return `daily at ${choice.atTime} ${timeZone}`;
    case 'weekly':
      return `weekly on ${choice.weekDay} at ${choice.atTime} ${timeZone}`;
  }
}
