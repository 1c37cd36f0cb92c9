const MINUTE = 60_000;
const DAY = 86_400_000;

/** A local wall-clock reading: the day (as UTC midnight of that date), weekday and minute of day. */
export interface WallTime {
  /** The local date at 00:00 as if it were UTC, in ms: day arithmetic without zone rules. */
  readonly dayMs: number;
  /** 0 = Monday … 6 = Sunday. */
  readonly weekday: number;
  /** 0 … 1439. */
  readonly minute: number;
}

// Offsets come from Intl, not date-fns-tz: its getTimezoneOffset answers with the day's later offset
// for the hours before a DST change (New York at 2026-03-08T05:00Z gives -4 h instead of -5 h).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Milliseconds to add to a UTC instant to read the zone's wall clock (`-5 h` in New York winter). */
export function zoneOffset(instantMs: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const p: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instantMs))) p[part.type] = Number(part.value);
  const wall = Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']!, p['minute']!, p['second']!);
  return wall - Math.floor(instantMs / 1000) * 1000;
}

const offsetOf = zoneOffset;

/** The wall-clock reading of an instant in an IANA zone (seconds are dropped). */
export function wallTime(instantMs: number, timeZone: string): WallTime {
  const local = instantMs + offsetOf(instantMs, timeZone);
  const dayMs = Math.floor(local / DAY) * DAY;
  return { dayMs, weekday: (new Date(dayMs).getUTCDay() + 6) % 7, minute: Math.floor((local - dayMs) / MINUTE) };
}

/**
 * The instants whose wall clock in `timeZone` reads `wallMs` (a local date-time written as if UTC):
 * one normally, two when clocks fall back over it. When clocks spring forward over it there is none,
 * and the first instant after the skipped time is returned instead.
 */
export function instantsAtWall(wallMs: number, timeZone: string): number[] {
  const found = new Set<number>();
  // The instants reading `wallMs` lie within 14 h before it to 12 h after (UTC-12 … UTC+14): a probe a
  // whole day before and one half a day after read the offsets on either side of any change there.
  for (const probe of [wallMs - DAY, wallMs, wallMs + DAY / 2]) {
    const candidate = wallMs - offsetOf(probe, timeZone);
    if (candidate + offsetOf(candidate, timeZone) === wallMs) found.add(candidate);
  }
  if (found.size > 0) return [...found].sort((a, b) => a - b);
  // A skipped wall time: the offset before the change puts us past the gap; walk back to its start.
  let at = wallMs - offsetOf(wallMs - DAY, timeZone);
  while (at - MINUTE + offsetOf(at - MINUTE, timeZone) >= wallMs) at -= MINUTE;
  return [at];
}

/** `instantsAtWall` for a minute of a local day. */
export const instantsAtWallTime = (dayMs: number, minute: number, timeZone: string) => instantsAtWall(dayMs + minute * MINUTE, timeZone);

/**
 * The instants in `(fromMs, toMs]` at which the zone's clocks fall back (its offset drops), to the
 * millisecond: from each, wall times already read go by again.
 */
export function fallBacks(fromMs: number, toMs: number, timeZone: string): number[] {
  if (timeZone === 'UTC') return [];
  const found: number[] = [];
  // No zone changes its offset twice within half a day.
  for (let start = fromMs; start < toMs; start += DAY / 2) {
    const end = Math.min(start + DAY / 2, toMs);
    const before = offsetOf(start, timeZone);
    if (offsetOf(end, timeZone) >= before) continue;
    let lo = start;
    let hi = end;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetOf(mid, timeZone) === before) lo = mid;
      else hi = mid;
    }
    found.push(hi);
  }
  return found;
}

export { DAY };
