import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextCadenceTime } from '../src/internal.js';
import { WEEKDAYS, type CadenceChoice } from '../src/schemas.js';
import { testEngine } from './helpers.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

// Reference, built apart from the engine's wall-clock helpers: the zone's offset read with Intl at a
// few instants, its changes found by bisection, so the clock is a list of pieces [start, offset). A
// cadence names wall times; each closes a window at the first instant whose reading reaches it.
const formatters = new Map<string, Intl.DateTimeFormat>();
function offsetAt(ms: number, zone: string): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  const whole = Math.floor(ms / 1000) * 1000;
  return Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']!, p['minute']!, p['second']!) - whole;
}

interface Piece {
  readonly start: number;
  readonly end: number;
  readonly offset: number;
}

function pieces(zone: string, from: number, to: number): Piece[] {
  const out: Piece[] = [];
  let start = from;
  let offset = offsetAt(from, zone);
  for (let t = from + 3 * HOUR; t < to + 3 * HOUR; t += 3 * HOUR) {
    const next = offsetAt(t, zone);
    if (next === offset) continue;
    // The change lies in (t - 3 h, t]: bisect to the second.
    let lo = Math.floor((t - 3 * HOUR) / 1000);
    let hi = Math.ceil(t / 1000);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetAt(mid * 1000, zone) === offset) lo = mid;
      else hi = mid;
    }
    out.push({ start, end: hi * 1000, offset });
    start = hi * 1000;
    offset = next;
  }
  out.push({ start, end: Number.POSITIVE_INFINITY, offset });
  return out;
}

/** The first instant whose wall reading is at least `wall`: its first occurrence, or the jump over it. */
function reached(clock: readonly Piece[], wall: number): number | null {
  for (const piece of clock) {
    if (piece.start + piece.offset >= wall) return piece.start;
    if (wall < piece.end + piece.offset) return wall - piece.offset;
  }
  return null;
}

function namedWalls(choice: CadenceChoice, fromWall: number, toWall: number): number[] {
  const walls: number[] = [];
  if (choice.cadence === 'hourly') {
    for (let w = Math.ceil(fromWall / HOUR) * HOUR; w <= toWall; w += HOUR) walls.push(w);
    return walls;
  }
  if (choice.cadence === 'instant') return walls;
  const [h, m] = choice.atTime.split(':').map(Number);
  for (let day = Math.floor(fromWall / DAY) * DAY; day <= toWall; day += DAY) {
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7];
    if (choice.cadence === 'weekly' && weekday !== choice.weekDay) continue;
    walls.push(day + h! * HOUR + m! * MINUTE);
  }
  return walls;
}

function reference(choice: CadenceChoice, now: number, zone: string): { due: number; shift: number } {
  const clock = pieces(zone, now - 2 * DAY, now + 10 * DAY);
  const nowWall = now + offsetAt(now, zone);
  let due = Number.POSITIVE_INFINITY;
  for (const wall of namedWalls(choice, nowWall - 2 * DAY, nowWall + 9 * DAY)) {
    const at = reached(clock, wall);
    if (at !== null && at > now && at < due) due = at;
  }
  const offsets = clock.map((p) => p.offset);
  return { due, shift: Math.max(...offsets) - Math.min(...offsets) };
}

const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kathmandu', 'America/St_Johns', 'America/Santiago', 'Pacific/Apia', 'Antarctica/Troll'];

/** Each zone's offset changes between 2024 and 2031, found once: instants near them are where cadences go wrong. */
const TRANSITIONS = new Map(ZONES.map((zone) => [zone, pieces(zone, Date.UTC(2024, 0, 1), Date.UTC(2031, 0, 1)).slice(1).map((p) => p.start)]));

const instantsIn = (zone: string) => {
  const changes = TRANSITIONS.get(zone)!;
  const any = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) });
  if (changes.length === 0) return any;
  return fc.oneof(
    any,
    fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -8 * DAY, max: DAY })).map(([t, d]) => t + d),
    fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -26 * HOUR, max: 2 * HOUR }), fc.constantFrom(0, 1, 999, 30_000)).map(([t, d, ms]) => Math.floor((t + d) / MINUTE) * MINUTE + ms),
  );
};
/** A zone and an instant, often near one of its changes. */
const zoneAndInstant = fc.constantFrom(...ZONES).chain((zone) => fc.tuple(fc.constant(zone), instantsIn(zone)));

const atTimes = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
  // Inside or at the edges of the hours clocks skip or repeat somewhere.
  fc.constantFrom('00:00', '00:30', '01:00', '01:30', '01:45', '02:00', '02:15', '02:30', '02:45', '03:00', '03:30', '03:45', '23:59'),
);
const choices: fc.Arbitrary<CadenceChoice> = fc.oneof(
  fc.constant({ id: 'hourly', cadence: 'hourly' as const }),
  atTimes.map((atTime) => ({ id: 'daily', cadence: 'daily' as const, atTime })),
  fc.tuple(atTimes, fc.constantFrom(...WEEKDAYS)).map(([atTime, weekDay]) => ({ id: 'weekly', cadence: 'weekly' as const, atTime, weekDay })),
);

describe('digest cadence timing — properties', () => {
  it('a window closes at the first instant after now at which the clock reaches a time the cadence names (a skipped time at the jump, a repeated one at its first occurrence), within a week and the zone’s shift', () => {
    fc.assert(
      fc.property(choices, zoneAndInstant, (choice, [zone, now]) => {
        const expected = reference(choice, now, zone);
        const due = nextCadenceTime(choice, new Date(now), zone)!.getTime();
        expect(due).toBe(expected.due);
        expect(due).toBeGreaterThan(now);
        expect(due - now).toBeLessThanOrEqual((choice.cadence === 'hourly' ? HOUR : choice.cadence === 'daily' ? DAY : 7 * DAY) + expected.shift);
        if (zone !== 'Antarctica/Troll') expect(due - now).toBeLessThanOrEqual(7 * DAY + HOUR);
      }),
      { numRuns: 400 },
    );
  });

  it('the wall clock reads the named time when the window closes, unless clocks skipped it', () => {
    fc.assert(
      fc.property(choices, zoneAndInstant, (choice, [zone, now]) => {
        const due = nextCadenceTime(choice, new Date(now), zone)!.getTime();
        const wall = new Date(due + offsetAt(due, zone));
        const skipped = offsetAt(due - 1000, zone) < offsetAt(due, zone);
        if (skipped) return;
        if (choice.cadence === 'hourly') expect([wall.getUTCMinutes(), wall.getUTCSeconds()]).toEqual([0, 0]);
        else if (choice.cadence !== 'instant') expect(`${String(wall.getUTCHours()).padStart(2, '0')}:${String(wall.getUTCMinutes()).padStart(2, '0')}`).toBe(choice.atTime);
        if (choice.cadence === 'weekly') expect(WEEKDAYS[(wall.getUTCDay() + 6) % 7]).toBe(choice.weekDay);
      }),
      { numRuns: 200 },
    );
  });

  it('in the engine, on the manual clock: a subscriber’s cadence digest delivers at the reference time on their clock, not a millisecond before', async () => {
    await fc.assert(
      fc.asyncProperty(choices, zoneAndInstant, async (choice, [zone, now]) => {
        const { tidings, clock } = testEngine({}, new Date(now).toISOString());
        await tidings.workflows.upsert({
          name: 'Cadence',
          triggers: [{ identifier: 'cadence' }],
          steps: [
            { template: { type: 'digest' }, metadata: { type: 'preference', choices: [{ id: 'instant', cadence: 'instant' }, choice], default: 'instant' } },
            { template: { type: 'in_app', content: '{{ step.total_count }}' } },
          ],
        });
        await tidings.subscribers.upsert({ subscriberId: 'ada', timezone: zone });
        await tidings.preferences.update('ada', { workflowId: 'cadence', digest: choice.id });
        await tidings.trigger({ name: 'cadence', to: 'ada' });
        await tidings.runDue();
        const { due } = reference(choice, now, zone);
        expect((await tidings.pending()).digests.map((d) => d.dueAt)).toEqual([new Date(due).toISOString()]);
        clock.set(new Date(due - 1));
        await tidings.runDue();
        expect((await tidings.messages.feed('ada')).items).toEqual([]);
        clock.set(new Date(due));
        await tidings.runDue();
        expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['1']);
      }),
      { numRuns: 25 },
    );
  });

  it('instant opens no window', () => {
    fc.assert(
      fc.property(zoneAndInstant, ([zone, now]) => {
        expect(nextCadenceTime({ id: 'now', cadence: 'instant' }, new Date(now), zone)).toBeNull();
      }),
      { numRuns: 20 },
    );
  });
});

describe('digest cadence timing — examples', () => {
  const at = (choice: CadenceChoice, iso: string, zone: string) => nextCadenceTime(choice, new Date(iso), zone)?.toISOString();
  const daily = (atTime: string): CadenceChoice => ({ id: 'daily', cadence: 'daily', atTime });

  it('daily at 09:00 in Paris is 08:00Z in winter and 07:00Z from the day clocks go forward', () => {
    expect(at(daily('09:00'), '2026-03-28T08:00:00Z', 'Europe/Paris')).toBe('2026-03-29T07:00:00.000Z');
    expect(at(daily('09:00'), '2026-03-27T09:00:00Z', 'Europe/Paris')).toBe('2026-03-28T08:00:00.000Z');
  });

  it('a skipped time closes the window at the jump; a repeated one at its first occurrence only', () => {
    // New York springs from 02:00 EST to 03:00 EDT at 07:00Z on 2026-03-08.
    expect(at(daily('02:30'), '2026-03-08T05:00:00Z', 'America/New_York')).toBe('2026-03-08T07:00:00.000Z');
    // It falls from 02:00 EDT back to 01:00 EST at 06:00Z on 2026-11-01: 01:30 is 05:30Z, then again 06:30Z.
    expect(at(daily('01:30'), '2026-11-01T05:00:00Z', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(at(daily('01:30'), '2026-11-01T06:00:00Z', 'America/New_York')).toBe('2026-11-02T06:30:00.000Z');
    // Hourly: the repeated hour is not a new window; 02:00 EST comes two hours after 01:00 EDT.
    expect(at({ id: 'h', cadence: 'hourly' }, '2026-11-01T05:10:00Z', 'America/New_York')).toBe('2026-11-01T07:00:00.000Z');
  });

  it('weekly on monday at 09:00; a window opened at that very instant closes a week later', () => {
    const weekly: CadenceChoice = { id: 'weekly', cadence: 'weekly', weekDay: 'monday', atTime: '09:00' };
    expect(at(weekly, '2026-06-03T12:00:00Z', 'UTC')).toBe('2026-06-08T09:00:00.000Z');
    expect(at(weekly, '2026-06-08T09:00:00Z', 'UTC')).toBe('2026-06-15T09:00:00.000Z');
  });

  it('Pacific/Chatham (+12:45, +13:45 in summer): both sides of its changes', () => {
    // Clocks fall from 03:45 back to 02:45 at 14:00Z on 2026-04-04: 03:00 is 13:15Z first.
    expect(at(daily('03:00'), '2026-04-04T12:00:00Z', 'Pacific/Chatham')).toBe('2026-04-04T13:15:00.000Z');
    // Clocks spring from 02:45 to 03:45 at 14:00Z on 2026-09-26: 03:00 does not exist that night.
    expect(at(daily('03:00'), '2026-09-26T12:00:00Z', 'Pacific/Chatham')).toBe('2026-09-26T14:00:00.000Z');
  });
});
