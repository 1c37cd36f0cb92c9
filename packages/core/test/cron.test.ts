import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextCronTime, parseCron, type CronSchedule } from '../src/timing/cron.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

function schedule(expression: string): CronSchedule {
  const parsed = parseCron(expression);
  if ('error' in parsed) throw new Error(`${expression}: ${parsed.error}`);
  return parsed;
}

/** `nextCronTime` as an ISO string (or null), for readable expectations. */
function next(expression: string, after: string, zone = 'UTC'): string | null {
  return nextCronTime(schedule(expression), new Date(after), zone)?.toISOString() ?? null;
}

/** Successive firings from `after`, each strictly after the one before. */
function firings(expression: string, after: string, count: number, zone = 'UTC'): string[] {
  const s = schedule(expression);
  const out: string[] = [];
  let at = new Date(after);
  for (let i = 0; i < count; i++) {
    at = nextCronTime(s, at, zone)!;
    out.push(at.toISOString());
  }
  return out;
}

const errorOf = (expression: string) => {
  const parsed = parseCron(expression);
  return 'error' in parsed ? parsed.error : null;
};

describe('parseCron', () => {
  it('reads lists, ranges, steps, names in any case, and 7 as Sunday', () => {
    expect(schedule('*/15 9-17/4 1,15 jan-MAR/2 Mon-fri,7')).toEqual({
      minutes: [0, 15, 30, 45],
      hours: [9, 13, 17],
      daysOfMonth: [1, 15],
      months: [1, 3],
      daysOfWeek: [0, 1, 2, 3, 4, 5],
      dayOfMonthRestricted: true,
      dayOfWeekRestricted: true,
    });
    expect(schedule('0 0 * * 5-7').daysOfWeek).toEqual([0, 5, 6]);
    expect(schedule('0 0 * * *').daysOfWeek).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(schedule('  0   12 * * *  ').hours).toEqual([12]);
  });

  it('expands the macros', () => {
    expect(parseCron('@yearly')).toEqual(parseCron('0 0 1 1 *'));
    expect(parseCron('@ANNUALLY')).toEqual(parseCron('0 0 1 1 *'));
    expect(parseCron('@monthly')).toEqual(parseCron('0 0 1 * *'));
    expect(parseCron('@weekly')).toEqual(parseCron('0 0 * * 0'));
    expect(parseCron('@daily')).toEqual(parseCron('0 0 * * *'));
    expect(parseCron('@midnight')).toEqual(parseCron('0 0 * * *'));
    expect(parseCron('@hourly')).toEqual(parseCron('0 * * * *'));
  });

  it('refuses anything else with an error naming the field', () => {
    expect(errorOf('0 25 * * *')).toBe('"hour": 25 is outside 0-23');
    expect(errorOf('60 * * * *')).toBe('"minute": 60 is outside 0-59');
    expect(errorOf('* * 0 * *')).toBe('"day-of-month": 0 is outside 1-31');
    expect(errorOf('* * 32 * *')).toBe('"day-of-month": 32 is outside 1-31');
    expect(errorOf('* * * 13 *')).toBe('"month": 13 is outside 1-12');
    expect(errorOf('* * * * 8')).toBe('"day-of-week": 8 is outside 0-7');
    expect(errorOf('1,,2 * * * *')).toBe('"minute": empty list item');
    expect(errorOf('* * * * 1,')).toBe('"day-of-week": empty list item');
    expect(errorOf('5-1 * * * *')).toBe('"minute": range 5-1 runs backwards');
    expect(errorOf('*/0 * * * *')).toMatch(/^"minute": step/);
    expect(errorOf('* */ * * *')).toMatch(/^"hour": step/);
    expect(errorOf('5/10 * * * *')).toMatch(/^"minute": a step needs/);
    expect(errorOf('1-2-3 * * * *')).toMatch(/^"minute":/);
    expect(errorOf('* * * FOO *')).toMatch(/^"month": "FOO"/);
    expect(errorOf('* * * * JAN')).toMatch(/^"day-of-week": "JAN"/);
    expect(errorOf('MON * * * *')).toMatch(/^"minute": "MON"/);
    expect(errorOf('-1 * * * *')).toMatch(/^"minute":/);
    expect(errorOf('0 0 * * * *')).toMatch(/expected 5 fields .* got 6/);
    expect(errorOf('0 0 * *')).toMatch(/got 4/);
    expect(errorOf('')).toMatch(/got 0/);
    expect(errorOf('@reboot')).toMatch(/unknown macro "@reboot"/);
  });
});

describe('nextCronTime', () => {
  it('every 15 minutes, strictly after', () => {
    expect(next('*/15 * * * *', '2026-01-01T10:07:30Z')).toBe('2026-01-01T10:15:00.000Z');
    expect(next('*/15 * * * *', '2026-01-01T10:15:00Z')).toBe('2026-01-01T10:30:00.000Z');
    expect(next('*/15 * * * *', '2026-01-01T10:14:59.999Z')).toBe('2026-01-01T10:15:00.000Z');
    expect(next('*/15 * * * *', '2026-12-31T23:50:00Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('daily 09:00 in New York keeps the wall time across the March and November changes', () => {
    expect(firings('0 9 * * *', '2026-03-06T15:00:00Z', 3, 'America/New_York')).toEqual([
      '2026-03-07T14:00:00.000Z', // EST, UTC-5
      '2026-03-08T13:00:00.000Z', // EDT, UTC-4, from the change day on
      '2026-03-09T13:00:00.000Z',
    ]);
    expect(firings('0 9 * * *', '2026-10-30T14:00:00Z', 3, 'America/New_York')).toEqual([
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
    ]);
  });

  it('a wall time skipped by spring forward does not fire', () => {
    // 2026-03-08 02:00 EST jumps to 03:00 EDT: 02:30 does not exist that day.
    expect(firings('30 2 * * *', '2026-03-07T00:00:00Z', 2, 'America/New_York')).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(next('*/20 * * * *', '2026-03-08T06:50:00Z', 'America/New_York')).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT
  });

  it('a wall time repeated by fall back fires at its first occurrence only', () => {
    // 2026-11-01 02:00 EDT falls back to 01:00 EST: 01:00-01:59 happens twice.
    expect(firings('30 1 * * *', '2026-10-31T12:00:00Z', 2, 'America/New_York')).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(firings('*/30 * * * *', '2026-11-01T05:00:00Z', 3, 'America/New_York')).toEqual([
      '2026-11-01T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T07:00:00.000Z', // 02:00 EST; 01:00 and 01:30 EST already fired
      '2026-11-01T07:30:00.000Z',
    ]);
    // Asked from inside the second pass, the repeated minutes are not fired again.
    expect(next('45 1 * * *', '2026-11-01T06:30:00Z', 'America/New_York')).toBe('2026-11-02T06:45:00.000Z');
    // Past UTC+12 too: Chatham falls back from 03:45 +13:45 to 02:45 +12:45 on 2026-04-05.
    expect(firings('0 3 * * *', '2026-04-04T13:00:00Z', 2, 'Pacific/Chatham')).toEqual(['2026-04-04T13:15:00.000Z', '2026-04-05T14:15:00.000Z']);
  });

  it('weekdays only', () => {
    // 2026-01-02 is a Friday.
    expect(firings('0 9 * * 1-5', '2026-01-02T08:00:00Z', 3)).toEqual(['2026-01-02T09:00:00.000Z', '2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z']);
    expect(firings('0 9 * * MON-FRI', '2026-01-02T08:00:00Z', 3)).toEqual(firings('0 9 * * 1-5', '2026-01-02T08:00:00Z', 3));
  });

  it('@weekly fires Sundays at midnight, in the given zone', () => {
    expect(firings('@weekly', '2026-01-01T00:00:00Z', 2)).toEqual(['2026-01-04T00:00:00.000Z', '2026-01-11T00:00:00.000Z']);
    expect(next('@weekly', '2026-01-01T00:00:00Z', 'Asia/Tokyo')).toBe('2026-01-03T15:00:00.000Z');
  });

  it('day-of-month and day-of-week both restricted: either matches', () => {
    // The 13th, or any Friday.
    expect(firings('0 0 13 * 5', '2026-01-01T00:00:00Z', 4)).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
      '2026-01-13T00:00:00.000Z',
      '2026-01-16T00:00:00.000Z',
    ]);
    // Only one restricted: that one alone decides.
    expect(next('0 0 13 * *', '2026-01-01T00:00:00Z')).toBe('2026-01-13T00:00:00.000Z');
    expect(next('0 0 * * 5', '2026-01-01T00:00:00Z')).toBe('2026-01-02T00:00:00.000Z');
  });

  it('null when nothing matches within 5 years; rare dates are still found', () => {
    expect(next('0 0 30 2 *', '2026-01-01T00:00:00Z')).toBeNull();
    expect(next('0 0 31 4,6,9,11 *', '2026-01-01T00:00:00Z', 'Europe/Paris')).toBeNull();
    expect(next('0 0 29 2 *', '2026-01-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('59 23 31 12 *', '2026-12-31T23:59:00Z')).toBe('2027-12-31T23:59:00.000Z');
    expect(nextCronTime(schedule('* * * * *'), new Date(Number.NaN), 'UTC')).toBeNull();
  });

  it('an unknown zone is a RangeError', () => {
    expect(() => nextCronTime(schedule('* * * * *'), new Date(0), 'Mars/Olympus')).toThrow(RangeError);
  });
});

// Reference model, independent of the implementation: step minute by minute and match the parsed
// fields against the wall clock with the cron day rule.
interface Wall {
  readonly month: number;
  readonly day: number;
  readonly weekday: number;
  readonly hour: number;
  readonly minute: number;
}

function referenceMatches(s: CronSchedule, w: Wall): boolean {
  const dom = s.daysOfMonth.includes(w.day);
  const dow = s.daysOfWeek.includes(w.weekday);
  const dayOk = s.dayOfMonthRestricted && s.dayOfWeekRestricted ? dom || dow : dom && dow;
  return dayOk && s.months.includes(w.month) && s.hours.includes(w.hour) && s.minutes.includes(w.minute);
}

function utcWall(ms: number): Wall {
  const d = new Date(ms);
  return { month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
}

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const formatters = new Map<string, Intl.DateTimeFormat>();
function zoneWall(ms: number, zone: string): Wall {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', month: 'numeric', day: 'numeric', weekday: 'short', hour: 'numeric', minute: 'numeric' });
    formatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return { month: Number(p['month']), day: Number(p['day']), weekday: WEEKDAY_NAMES.indexOf(p['weekday']!), hour: Number(p['hour']), minute: Number(p['minute']) };
}

const sameWall = (a: Wall, b: Wall) => a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;

/** First matching minute within `days` after `ms`, or null; `firstOnly` drops repeated wall times. */
function referenceNext(s: CronSchedule, ms: number, days: number, readWall: (ms: number) => Wall): number | null {
  const end = ms + days * DAY;
  for (let t = Math.floor(ms / MINUTE) * MINUTE + MINUTE; t <= end; t += MINUTE) {
    const wall = readWall(t);
    if (!referenceMatches(s, wall)) continue;
    // A repeat of a wall time read within the last hour (fall back by 30 or 60 minutes) is not a firing.
    if (sameWall(readWall(t - 30 * MINUTE), wall) || sameWall(readWall(t - 60 * MINUTE), wall)) continue;
    return t;
  }
  return null;
}

/** A random cron field: `*`, a value, a range, either stepped, or a list of those. */
function field(min: number, max: number, star: number): fc.Arbitrary<string> {
  const value = fc.integer({ min, max });
  const range = fc.tuple(value, value).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`);
  const step = fc.integer({ min: 1, max: Math.max(1, max - min) });
  const item = fc.oneof(
    value.map(String),
    range,
    step.map((n) => `*/${n}`),
    fc.tuple(range, step).map(([r, n]) => `${r}/${n}`),
  );
  return fc.oneof(
    { weight: star, arbitrary: fc.constant('*') },
    { weight: 3, arbitrary: item },
    { weight: 1, arbitrary: fc.array(item, { minLength: 2, maxLength: 3 }).map((items) => items.join(',')) },
  );
}

// Day and month fields lean to `*` so that most expressions fire within the reference's window.
const expressions = fc
  .tuple(field(0, 59, 1), field(0, 23, 2), field(1, 31, 6), field(1, 12, 12), field(0, 7, 3))
  .map((fields) => fields.join(' '));

describe('nextCronTime — properties', () => {
  it('agrees in UTC with a minute-by-minute scan over 3 days (or fires later than that)', () => {
    const instants = fc.integer({ min: Date.parse('2024-01-01T00:00:00Z'), max: Date.parse('2029-01-01T00:00:00Z') });
    fc.assert(
      fc.property(expressions, instants, (expression, ms) => {
        const s = schedule(expression);
        const expected = referenceNext(s, ms, 3, utcWall);
        const actual = nextCronTime(s, new Date(ms), 'UTC')?.getTime() ?? null;
        if (expected !== null) expect(actual).toBe(expected);
        else expect(actual === null || actual > ms + 3 * DAY).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees around DST changes with a scan of the wall clock read through Intl', () => {
    const zones = fc.constantFrom('America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Santiago');
    const TRANSITIONS = ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z', '2026-04-05T03:00:00Z', '2026-09-06T04:00:00Z'].map(Date.parse);
    const instants = fc.tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -DAY, max: DAY / 4 })).map(([t, d]) => t + d);
    fc.assert(
      fc.property(expressions, instants, zones, (expression, ms, zone) => {
        const s = schedule(expression);
        const expected = referenceNext(s, ms, 2, (t) => zoneWall(t, zone));
        const actual = nextCronTime(s, new Date(ms), zone)?.getTime() ?? null;
        if (expected !== null) expect(actual).toBe(expected);
        else expect(actual === null || actual > ms + 2 * DAY).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
