import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestDueAt } from '../src/index.js';
import { nextTimedOccurrence, type TimedRule } from '../src/internal.js';
import { WEEKDAYS, type TimedConfig } from '../src/schemas.js';

// Reference: read the wall clock with Intl, walk forward minute by minute, and fire at the first
// instant where a matching wall minute has been reached (a matching minute skipped by a DST jump
// fires at the first instant after the jump; a repeated hour fires once).
const formatters = new Map<string, Intl.DateTimeFormat>();
function wall(ms: number, zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']!, p['minute']!);
}

function referenceMatches(rule: TimedRule, wallMs: number): boolean {
  const d = new Date(wallMs);
  const day = Math.floor(wallMs / 86_400_000);
  const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
  const [ah = 0, am = 0] = (rule.config.atTime ?? '00:00').split(':').map(Number);
  const weekday = WEEKDAYS[(d.getUTCDay() + 6) % 7]!;
  const n = rule.amount;
  switch (rule.unit) {
    case 'minutes':
      return minute % n === 0;
    case 'hours':
      return d.getUTCMinutes() === am && d.getUTCHours() % n === 0;
    case 'days':
      return minute === ah * 60 + am && day % n === 0;
    case 'weeks':
      return minute === ah * 60 + am && Math.floor((day + 3) / 7) % n === 0 && (rule.config.weekDays?.length ? rule.config.weekDays : ['monday']).includes(weekday);
    case 'months': {
      if (minute !== ah * 60 + am || (d.getUTCFullYear() * 12 + d.getUTCMonth()) % n !== 0) return false;
      if (rule.config.monthlyType !== 'on') return (rule.config.monthDays?.length ? rule.config.monthDays.map(Number) : [1]).includes(d.getUTCDate());
      const value = rule.config.ordinalValue ?? 'day';
      const ok = (date: Date) => {
        const wd = (date.getUTCDay() + 6) % 7;
        return value === 'day' || (value === 'weekday' && wd < 5) || (value === 'weekend' && wd >= 5) || WEEKDAYS[wd] === value;
      };
      const qualifying: number[] = [];
      for (let dd = 1; dd <= 31; dd++) {
        const date = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), dd));
        if (date.getUTCMonth() !== d.getUTCMonth()) break;
        if (ok(date)) qualifying.push(dd);
      }
      const ordinal = rule.config.ordinal ?? '1';
      const target = ordinal === 'last' ? qualifying.at(-1) : qualifying[Number(ordinal) - 1];
      return target === d.getUTCDate();
    }
    default:
      return false;
  }
}

// Intl is slow; within an hour whose start and end share one offset, every minute has it too.
function fastWall(zone: string) {
  const hours = new Map<number, number | null>();
  return (t: number) => {
    const hour = Math.floor(t / 3_600_000) * 3_600_000;
    let offset = hours.get(hour);
    if (offset === undefined) {
      const a = wall(hour, zone) - hour;
      const b = wall(hour + 3_540_000, zone) - (hour + 3_540_000);
      offset = a === b ? a : null;
      hours.set(hour, offset);
    }
    return offset === null ? wall(t, zone) : t + offset;
  };
}

function reference(rule: TimedRule, after: number, zone: string, limitMinutes: number): number | null {
  const wallOf = fastWall(zone);
  let seen = wall(after, zone);
  for (let t = Math.floor(after / 60_000) * 60_000 + 60_000, i = 0; i < limitMinutes; t += 60_000, i++) {
    const now = wallOf(t);
    for (let w = seen + 60_000; w <= now; w += 60_000) if (referenceMatches(rule, w)) return t;
    seen = Math.max(seen, now);
  }
  return null;
}

const zones = fc.constantFrom('UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Adelaide', 'Asia/Kathmandu');
const time = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const TRANSITIONS = ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-04-04T16:30:00Z', '2026-10-03T16:30:00Z'].map(Date.parse);
const instants = fc.oneof(
  fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
  fc.tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -30 * 3_600_000, max: 6 * 3_600_000 })).map(([t, d]) => t + d),
);
const rules: fc.Arbitrary<[TimedRule, number]> = fc.oneof(
  fc.tuple(fc.constantFrom(1, 5, 15, 30, 90), fc.constant({})).map(([amount]) => [{ unit: 'minutes' as const, amount, config: {} }, 3 * 1440] as [TimedRule, number]),
  fc.tuple(fc.constantFrom(1, 2, 3, 6), time).map(([amount, atTime]) => [{ unit: 'hours' as const, amount, config: { atTime } }, 3 * 1440] as [TimedRule, number]),
  fc.tuple(fc.integer({ min: 1, max: 3 }), time).map(([amount, atTime]) => [{ unit: 'days' as const, amount, config: { atTime } }, 5 * 1440] as [TimedRule, number]),
  fc.tuple(fc.integer({ min: 1, max: 2 }), time, fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 3 })).map(
    ([amount, atTime, weekDays]) => [{ unit: 'weeks' as const, amount, config: { atTime, weekDays } }, 16 * 1440] as [TimedRule, number],
  ),
  fc.tuple(time, fc.uniqueArray(fc.integer({ min: 1, max: 31 }).map(String), { minLength: 1, maxLength: 3 })).map(
    ([atTime, monthDays]) => [{ unit: 'months' as const, amount: 1, config: { atTime, monthDays, monthlyType: 'each' } as TimedConfig }, 65 * 1440] as [TimedRule, number],
  ),
  fc.tuple(time, fc.constantFrom('1', '2', '3', '4', 'last'), fc.constantFrom('day', 'weekday', 'weekend', 'friday', 'sunday')).map(
    ([atTime, ordinal, ordinalValue]) => [{ unit: 'months' as const, amount: 1, config: { atTime, monthlyType: 'on', ordinal, ordinalValue } as TimedConfig }, 65 * 1440] as [TimedRule, number],
  ),
);

describe('digest timing — properties', () => {
  it('a timed rule fires where a minute-by-minute scan of the wall clock first finds it, strictly after now', () => {
    fc.assert(
      fc.property(rules, instants, zones, ([rule, limit], after, zone) => {
        const expected = reference(rule, after, zone, limit);
        const actual = nextTimedOccurrence(rule, new Date(after), zone);
        if (expected === null) expect(actual === null || actual.getTime() - after > limit * 60_000 - 120_000).toBe(true);
        else expect(actual?.getTime()).toBe(expected);
      }),
      { numRuns: 100, examples: [[[{ unit: 'minutes', amount: 1, config: {} }, 4320], 1775320200000, 'Australia/Adelaide']] },
    );
  }, 120_000);

  it('regular digests fire amount×unit after opening; updateMode moves it to after the latest event', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.constantFrom('seconds', 'minutes', 'hours', 'days', 'weeks') as fc.Arbitrary<'seconds' | 'minutes' | 'hours' | 'days' | 'weeks'>, instants, fc.integer({ min: 0, max: 10_000_000 }), (amount, unit, opened, later) => {
        const ms = { seconds: 1e3, minutes: 6e4, hours: 36e5, days: 864e5, weeks: 6048e5 }[unit];
        const timing = { openedAt: new Date(opened), now: new Date(opened + later) };
        expect(digestDueAt({ type: 'regular', amount, unit }, timing)!.getTime()).toBe(opened + amount * ms);
        expect(digestDueAt({ type: 'regular', amount, unit, updateMode: true }, timing)!.getTime()).toBe(opened + later + amount * ms);
      }),
    );
  });
});

describe('digest timing — examples', () => {
  it('daily at 09:00 in New York; the 2:30 AM run on the spring-forward day fires at 3:00 AM EDT', () => {
    const rule = { unit: 'days' as const, amount: 1, config: { atTime: '09:00' } };
    expect(nextTimedOccurrence(rule, new Date('2026-06-01T14:00:00Z'), 'America/New_York')?.toISOString()).toBe('2026-06-02T13:00:00.000Z');
    const early = { unit: 'days' as const, amount: 1, config: { atTime: '02:30' } };
    expect(nextTimedOccurrence(early, new Date('2026-03-08T05:00:00Z'), 'America/New_York')?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
  });

  it('monthly on the last weekday, and on the 31st (skipping shorter months)', () => {
    const lastWeekday = { unit: 'months' as const, amount: 1, config: { atTime: '17:00', monthlyType: 'on' as const, ordinal: 'last' as const, ordinalValue: 'weekday' as const } };
    expect(nextTimedOccurrence(lastWeekday, new Date('2026-02-01T00:00:00Z'))?.toISOString()).toBe('2026-02-27T17:00:00.000Z');
    const the31st = { unit: 'months' as const, amount: 1, config: { monthDays: ['31'] } };
    expect(nextTimedOccurrence(the31st, new Date('2026-04-01T00:00:00Z'))?.toISOString()).toBe('2026-05-31T00:00:00.000Z');
  });
});
