import { describe, expect, it } from 'vitest';
import { addTime } from '../src/internal.js';

describe('addTime', () => {
  it('fixed units; weeks are 7 days', () => {
    const t = new Date('2026-03-07T12:00:00Z');
    expect(addTime(t, 90, 'seconds').toISOString()).toBe('2026-03-07T12:01:30.000Z');
    expect(addTime(t, 1, 'weeks').toISOString()).toBe('2026-03-14T12:00:00.000Z');
    expect(addTime(t, 1, 'days', 'America/New_York').toISOString()).toBe('2026-03-08T12:00:00.000Z');
  });

  it('months are calendar months on the subscriber’s wall clock, clamped to the month end', () => {
    expect(addTime(new Date('2026-01-31T10:00:00Z'), 1, 'months').toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addTime(new Date('2026-03-01T17:00:00Z'), 1, 'months', 'America/New_York').toISOString()).toBe('2026-04-01T16:00:00.000Z');
    expect(addTime(new Date('2026-12-15T00:00:00Z'), 2, 'months').toISOString()).toBe('2027-02-15T00:00:00.000Z');
  });
});
