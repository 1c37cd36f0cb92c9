import { isValidTimeZone } from '../schedule/time-zone.js';
import { DAY, zoneOffset } from '../schedule/wall-clock.js';

const MINUTE = 60_000;
/** How far ahead `nextCronTime` looks before answering null. */
const SEARCH_YEARS = 5;

/**
 * A parsed 5-field cron expression. Every list is sorted, without duplicates. Day-of-week counts
 * from 0 = Sunday to 6 = Saturday (a 7 in the expression is read as 0).
 */
export interface CronSchedule {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[];
  /** 1 = January … 12 = December. */
  readonly months: readonly number[];
  readonly daysOfWeek: readonly number[];
  /** False when the day-of-month field is `*`: the day rule then needs only the day of week. */
  readonly dayOfMonthRestricted: boolean;
  /** False when the day-of-week field is `*`: the day rule then needs only the day of month. */
  readonly dayOfWeekRestricted: boolean;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** What `*` stands for; day-of-week accepts 7 but `*` means 0-6. */
  readonly starMax: number;
  /** Three-letter names for values `nameBase`, `nameBase + 1`, … */
  readonly names?: readonly string[];
  readonly nameBase?: number;
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59, starMax: 59 },
  { name: 'hour', min: 0, max: 23, starMax: 23 },
  { name: 'day-of-month', min: 1, max: 31, starMax: 31 },
  { name: 'month', min: 1, max: 12, starMax: 12, names: MONTH_NAMES, nameBase: 1 },
  { name: 'day-of-week', min: 0, max: 7, starMax: 6, names: WEEKDAY_NAMES, nameBase: 0 },
];

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

class CronFieldError extends Error {}

const fail = (field: FieldSpec, problem: string): never => {
  throw new CronFieldError(`"${field.name}": ${problem}`);
};

/** One value: digits, or (month and day-of-week only) a three-letter name, case-insensitive. */
function parseValue(text: string, field: FieldSpec): number {
  let value: number;
  if (/^\d+$/.test(text)) value = Number(text);
  else {
    const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
    if (index < 0) return fail(field, `"${text}" is not a number${field.names ? ' or a name' : ''}`);
    value = index + (field.nameBase ?? 0);
  }
  if (value < field.min || value > field.max) fail(field, `${text} is outside ${field.min}-${field.max}`);
  return value;
}

/** The bounds of `*`, `a` or `a-b`. */
function parseRange(text: string, field: FieldSpec): [number, number] {
  if (text === '*') return [field.min, field.starMax];
  const bounds = text.split('-');
  if (bounds.length > 2 || bounds.some((b) => b === '')) return fail(field, `"${text}" is not a value or a range`);
  const low = parseValue(bounds[0]!, field);
  const high = bounds.length === 2 ? parseValue(bounds[1]!, field) : low;
  if (low > high) fail(field, `range ${text} runs backwards`);
  return [low, high];
}

/** The values of one list item: `*`, `a`, `a-b`, or `*` or `a-b` followed by a step `/n`. */
function parseItem(item: string, field: FieldSpec): number[] {
  if (item === '') return fail(field, 'empty list item');
  const [rangeText = '', stepText, extra] = item.split('/');
  if (extra !== undefined) fail(field, `"${item}" has more than one step`);
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText) || Number(stepText) < 1) fail(field, `step in "${item}" must be a whole number of at least 1`);
    if (rangeText !== '*' && !rangeText.includes('-')) fail(field, `a step needs * or a range, got "${item}"`);
    step = Number(stepText);
  }
  const [low, high] = parseRange(rangeText, field);
  const values: number[] = [];
  for (let v = low; v <= high; v += step) values.push(v);
  return values;
}

/** A whole field's sorted, distinct values; day-of-week 7 becomes 0. */
function parseField(text: string, field: FieldSpec): number[] {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    for (const v of parseItem(item, field)) values.add(field.name === 'day-of-week' && v === 7 ? 0 : v);
  }
  return [...values].sort((a, b) => a - b);
}

/** The five fields of an expression, with a macro replaced by what it stands for. */
function splitFields(expression: string): string[] | { error: string } {
  const trimmed = expression.trim();
  if (trimmed.startsWith('@')) {
    const macro = MACROS[trimmed.toLowerCase()];
    return macro === undefined ? { error: `unknown macro "${trimmed}" (expected one of ${Object.keys(MACROS).join(' ')})` } : macro.split(' ');
  }
  const parts = trimmed === '' ? [] : trimmed.split(/\s+/);
  if (parts.length !== FIELDS.length) {
    return { error: `expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}` };
  }
  return parts;
}

/**
 * Parses a standard 5-field cron expression (minute hour day-of-month month day-of-week) or one of
 * the macros @yearly @annually @monthly @weekly @daily @midnight @hourly. Fields take `*`, numbers,
 * lists, ranges and steps (`a-b/n`, or `*` with `/n`); month and weekday names (JAN, sun) in any case; 0 and 7
 * are both Sunday. Anything else is answered with an error naming the field, e.g.
 * `"hour": 25 is outside 0-23`.
 */
export function parseCron(expression: string): CronSchedule | { error: string } {
  const parts = splitFields(expression);
  if (!Array.isArray(parts)) return parts;
  try {
    const [minutes, hours, daysOfMonth, months, daysOfWeek] = FIELDS.map((field, i) => parseField(parts[i]!, field)) as [
      number[],
      number[],
      number[],
      number[],
      number[],
    ];
    return { minutes, hours, daysOfMonth, months, daysOfWeek, dayOfMonthRestricted: parts[2] !== '*', dayOfWeekRestricted: parts[4] !== '*' };
  } catch (error) {
    if (error instanceof CronFieldError) return { error: error.message };
    throw error;
  }
}

/**
 * Whether a local date (00:00 as UTC ms) is a firing day. Standard cron rule: when both day-of-month
 * and day-of-week are restricted, either one matching is enough; otherwise both must match.
 */
function cronDayMatches(schedule: CronSchedule, dayMs: number): boolean {
  const date = new Date(dayMs);
  if (!schedule.months.includes(date.getUTCMonth() + 1)) return false;
  const byMonthDay = schedule.daysOfMonth.includes(date.getUTCDate());
  const byWeekday = schedule.daysOfWeek.includes(date.getUTCDay());
  return schedule.dayOfMonthRestricted && schedule.dayOfWeekRestricted ? byMonthDay || byWeekday : byMonthDay && byWeekday;
}

/**
 * The first instant the zone's clock reads `wallMs`; null when a DST jump skips it. Offsets are read a
 * day either side of the wall time, so both sides of a change near it are tried even in zones past
 * UTC+12 (`instantsAtWall` probes half a day, which misses the earlier reading in Pacific/Chatham).
 */
function firstInstantOfWall(wallMs: number, timeZone: string): number | null {
  let first: number | null = null;
  for (const probe of [wallMs - DAY, wallMs, wallMs + DAY]) {
    const candidate = wallMs - zoneOffset(probe, timeZone);
    const readsWall = candidate + zoneOffset(candidate, timeZone) === wallMs;
    if (readsWall && (first === null || candidate < first)) first = candidate;
  }
  return first;
}

/** The first firing on a local day after the instant `afterMs` (whose wall clock reads `afterWall`). */
function firstFiringOnDay(schedule: CronSchedule, dayMs: number, afterMs: number, afterWall: number, timeZone: string): number | null {
  for (const hour of schedule.hours) {
    if (dayMs + (hour * 60 + 59) * MINUTE <= afterWall) continue;
    for (const minute of schedule.minutes) {
      const wall = dayMs + (hour * 60 + minute) * MINUTE;
      if (wall <= afterWall) continue;
      // Only a wall time's first occurrence counts: a repeated hour fires once, a skipped one never.
      const instant = firstInstantOfWall(wall, timeZone);
      if (instant !== null && instant > afterMs) return instant;
    }
  }
  return null;
}

/** The local date (00:00 as UTC ms) `years` calendar years after `dayMs`. */
function addYears(dayMs: number, years: number): number {
  const date = new Date(dayMs);
  return Date.UTC(date.getUTCFullYear() + years, date.getUTCMonth(), date.getUTCDate());
}

/**
 * The first instant strictly after `after` whose wall clock in the IANA `timeZone` matches the
 * schedule. A wall time skipped when clocks spring forward does not fire; one repeated when they fall
 * back fires at its first occurrence only. Null when nothing matches within 5 years (`0 0 30 2 *`) or
 * `after` is an invalid date. Throws a RangeError for an unknown zone.
 */
export function nextCronTime(schedule: CronSchedule, after: Date, timeZone: string): Date | null {
  if (!isValidTimeZone(timeZone)) throw new RangeError(`unknown time zone "${timeZone}"`);
  const afterMs = after.getTime();
  if (Number.isNaN(afterMs)) return null;
  const afterWall = afterMs + zoneOffset(afterMs, timeZone);
  const firstDay = Math.floor(afterWall / DAY) * DAY;
  const lastDay = addYears(firstDay, SEARCH_YEARS);
  for (let day = firstDay; day <= lastDay; day += DAY) {
    if (!cronDayMatches(schedule, day)) continue;
    const instant = firstFiringOnDay(schedule, day, afterMs, afterWall, timeZone);
    if (instant !== null) return new Date(instant);
  }
  return null;
}
