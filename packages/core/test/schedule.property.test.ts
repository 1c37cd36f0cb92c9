import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWithinSchedule, nextScheduleOpening, type Schedule } from '../src/index.js';
import { formatClockTime, parseClockTime } from '../src/internal.js';
import { scheduleSchema, WEEKDAYS } from '../src/schemas.js';

// Reference model, independent of the implementation: read the wall clock with Intl, compare minutes.
const formatters = new Map<string, Intl.DateTimeFormat>();
function referenceWall(ms: number, zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'long', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { day: WEEKDAYS.indexOf(parts.weekday!.toLowerCase() as (typeof WEEKDAYS)[number]), minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

function toMinutes(text: string): number {
  const [, h, m, ap] = /^(\d+):(\d\d) ?(am|pm)$/i.exec(text.trim())!;
  return ((Number(h) % 12) + (ap!.toLowerCase() === 'pm' ? 12 : 0)) * 60 + Number(m);
}

function referenceWithin(schedule: Schedule, ms: number, zone: string): boolean {
  if (!schedule.isEnabled || !schedule.weeklySchedule) return true;
  const { day, minute } = referenceWall(ms, zone);
  const rangesOf = (d: number) => {
    const entry = schedule.weeklySchedule![WEEKDAYS[d]!];
    return entry?.isEnabled ? (entry.hours ?? []).map((h) => [toMinutes(h.start), toMinutes(h.end)] as const) : [];
  };
  const today = rangesOf(day).some(([s, e]) => (s <= e ? s <= minute && minute <= e : minute >= s));
  const spill = rangesOf((day + 6) % 7).some(([s, e]) => e < s && minute <= e);
  return today || spill;
}

const zones = fc.constantFrom('UTC', 'America/New_York', 'Europe/London', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Sao_Paulo');
const clock = fc.integer({ min: 0, max: 1439 }).map(formatClockTime);
const day = fc.record({ isEnabled: fc.boolean(), hours: fc.array(fc.record({ start: clock, end: clock }), { maxLength: 2 }) });
const schedules = fc.record({
  isEnabled: fc.boolean(),
  weeklySchedule: fc.record(Object.fromEntries(WEEKDAYS.map((d) => [d, day])) as Record<(typeof WEEKDAYS)[number], typeof day>, { requiredKeys: [] }),
}).filter((s) => Object.keys(s.weeklySchedule).length > 0);
// Instants around 2026, including DST changes in both hemispheres.
const TRANSITIONS = ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z', '2026-04-04T14:00:00Z'].map(Date.parse);
const instants = fc.oneof(
  fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') }),
  fc.tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -6 * 3_600_000, max: 6 * 3_600_000 })).map(([t, d]) => t + d),
);

describe('schedules — properties', () => {
  it('isWithinSchedule agrees with a wall-clock reference read through Intl', () => {
    fc.assert(
      fc.property(schedules, instants, zones, (schedule, ms, zone) => {
        expect(isWithinSchedule(schedule, new Date(ms), zone)).toBe(referenceWithin(schedule, ms, zone));
      }),
      { numRuns: 1000 },
    );
  }, 30_000);

  it('nextScheduleOpening is within, not before t, and no minute between t and it is within (minute-by-minute scan)', () => {
    fc.assert(
      fc.property(schedules, instants, zones, (schedule, ms, zone) => {
        const next = nextScheduleOpening(schedule, new Date(ms), zone);
        let scan = ms;
        let expected: number | null = referenceWithin(schedule, ms, zone) ? ms : null;
        scan = Math.floor(ms / 60_000) * 60_000 + 60_000;
        for (let i = 0; expected === null && i < 9 * 24 * 60; i++, scan += 60_000) if (referenceWithin(schedule, scan, zone)) expected = scan;
        expect(next === null ? null : next.getTime()).toBe(expected);
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('parsing round-trips every valid 12-hour time and refuses everything else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1439 }), fc.boolean(), fc.boolean(), fc.boolean(), (minute, pad, space, lower) => {
        const canonical = formatClockTime(minute);
        let [hm, ap] = canonical.split(' ') as [string, string];
        if (pad) hm = hm.padStart(5, '0');
        if (lower) ap = ap.toLowerCase();
        expect(parseClockTime(`${hm}${space ? ' ' : ''}${ap}`)).toBe(minute);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 9 }), (text) => {
        const valid = /^(0?[1-9]|1[0-2]):[0-5]\d ?(am|pm)$/i.test(text.trim());
        expect(parseClockTime(text) !== null).toBe(valid);
      }),
    );
    for (const bad of ['17:00', '18:00 PM', '13:00 AM', '12:60 PM', '0:30 AM', '9 AM', '9:5 AM', '']) expect(parseClockTime(bad)).toBeNull();
  });
});

describe('schedules — examples', () => {
  const workdays: Schedule = {
    isEnabled: true,
    weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '9:00 AM', end: '5:00 PM' }] }, tuesday: { isEnabled: true, hours: [{ start: '9:00 AM', end: '5:00 PM' }] } },
  };

  it('Monday 6 PM in New York waits until Tuesday 9 AM there', () => {
    const at = new Date('2026-06-01T22:00:00Z');
    expect(isWithinSchedule(workdays, at, 'America/New_York')).toBe(false);
    expect(nextScheduleOpening(workdays, at, 'America/New_York')?.toISOString()).toBe('2026-06-02T13:00:00.000Z');
    expect(isWithinSchedule(workdays, new Date('2026-06-01T21:00:59Z'), 'America/New_York')).toBe(true);
    expect(isWithinSchedule(workdays, new Date('2026-06-01T21:01:00Z'), 'America/New_York')).toBe(false);
  });

  it('clocks falling back into a range reopen it at the change, where no range starts', () => {
    // Saturday 1:01 AM until Sunday 1:00 AM (inclusive) in London; at 01:59:59 BST on Sunday it is over,
    // and at 02:00 BST the clocks go back to 01:00 GMT, inside it again.
    const overnight = { isEnabled: true, weeklySchedule: { saturday: { isEnabled: true, hours: [{ start: '1:01 AM', end: '1:00 AM' }] } } };
    const justOver = new Date('2026-10-25T00:59:59.999Z');
    expect(isWithinSchedule(overnight, justOver, 'Europe/London')).toBe(false);
    expect(nextScheduleOpening(overnight, justOver, 'Europe/London')?.toISOString()).toBe('2026-10-25T01:00:00.000Z');
    expect(isWithinSchedule(overnight, new Date('2026-10-25T01:00:00.000Z'), 'Europe/London')).toBe(true);
  });

  it('overnight ranges run into the next day', () => {
    const nights: Schedule = { isEnabled: true, weeklySchedule: { friday: { isEnabled: true, hours: [{ start: '10:00 PM', end: '2:00 AM' }] } } };
    expect(isWithinSchedule(nights, new Date('2026-06-06T01:30:00Z'), 'UTC')).toBe(true);
    expect(isWithinSchedule(nights, new Date('2026-06-06T02:01:00Z'), 'UTC')).toBe(false);
    expect(isWithinSchedule(nights, new Date('2026-06-05T01:30:00Z'), 'UTC')).toBe(false);
  });

  it('a range starting in the skipped hour of a spring-forward day opens at the first valid instant', () => {
    const sunday: Schedule = { isEnabled: true, weeklySchedule: { sunday: { isEnabled: true, hours: [{ start: '2:30 AM', end: '4:00 AM' }] } } };
    // 2026-03-08: New York clocks jump from 2:00 AM EST to 3:00 AM EDT (07:00Z).
    expect(nextScheduleOpening(sunday, new Date('2026-03-08T05:00:00Z'), 'America/New_York')?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
  });

  it('no schedule, a disabled one, or days without hours never restrict; a schedule with no open day never opens', () => {
    const t = new Date('2026-06-01T22:00:00Z');
    expect(isWithinSchedule(undefined, t)).toBe(true);
    expect(isWithinSchedule({ ...workdays, isEnabled: false }, t)).toBe(true);
    const closed: Schedule = { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [] }, tuesday: { isEnabled: false, hours: [{ start: '9:00 AM', end: '5:00 PM' }] } } };
    expect(isWithinSchedule(closed, t)).toBe(false);
    expect(nextScheduleOpening(closed, t)).toBeNull();
  });

  it('the schema refuses bad times, unknown days and an enabled empty weekly schedule, naming the field', () => {
    const result = scheduleSchema.safeParse({ isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '17:00', end: '18:00 PM' }] }, funday: { isEnabled: true } } });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['weeklySchedule.monday.hours.0.start', 'weeklySchedule.monday.hours.0.end', 'weeklySchedule']));
    expect(scheduleSchema.safeParse({ isEnabled: true, weeklySchedule: {} }).success).toBe(false);
  });
});
