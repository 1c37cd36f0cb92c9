import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Notification, Subscriber } from '../src/schemas/index.js';
import { NotPrecomputed, replayRun, resultsKey, type PrecomputedRuns } from '../src/walk/code-run-memo.js';

const UNREAD = { seen: false, read: false, lastSeenDate: null, lastReadDate: null };
const notification = { _id: 'n1', payload: { n: 1 } } as unknown as Notification;
const subscriber = {
  _id: 's1',
  subscriberId: 'ada',
  firstName: 'Ada',
  lastName: null,
  email: 'ada@example.com',
  data: { plan: 'pro' },
  channels: [],
  createdAt: '2026-05-04T08:00:00.000Z',
  updatedAt: '2026-05-04T08:00:00.000Z',
} as unknown as Subscriber;
const made = (): PrecomputedRuns => ({
  notification,
  subscriber,
  locale: 'en',
  runs: new Map([
    ['', { kind: 'step', stepId: 'hello', type: 'in_app', skipped: false, outputs: { body: 'Hello Ada' } }],
    ['hello\u0001', { kind: 'end' }],
  ]),
});

/** A change to one member of the subscriber: the members a write makes, or data a run reads. */
const change = fc.record({
  member: fc.constantFrom('_id', 'createdAt', 'updatedAt', 'firstName', 'lastName', 'email', 'data', 'channels', 'locale'),
  value: fc.oneof(fc.string(), fc.constant(null), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer()), fc.array(fc.string(), { maxLength: 2 })),
});

describe('precomputed code runs', () => {
  it('property: a replay finds its run exactly when the subscriber differs at most in what its write makes (_id, createdAt, updatedAt)', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 3 }), (changes) => {
        const seen = { ...subscriber } as unknown as Record<string, unknown>;
        for (const { member, value } of changes) seen[member] = value;
        const same = Object.keys({ ...subscriber, ...seen }).every((key) => ['_id', 'createdAt', 'updatedAt'].includes(key) || JSON.stringify(seen[key]) === JSON.stringify((subscriber as unknown as Record<string, unknown>)[key]));
        const replay = () => replayRun(made(), { notification, subscriber: seen as unknown as Subscriber, locale: 'en', results: new Map() });
        if (same) expect(replay()).toMatchObject({ kind: 'step', stepId: 'hello' });
        else expect(replay).toThrow(NotPrecomputed);
      }),
    );
  });

  it('a replay is keyed by the results it is given: each unread in-app result, in order; any other result has no run', () => {
    const runs = made();
    expect(replayRun(runs, { notification, subscriber, locale: 'en', results: new Map([['hello', UNREAD]]) })).toEqual({ kind: 'end' });
    expect(() => replayRun(runs, { notification, subscriber, locale: 'en', results: new Map([['hello', { ...UNREAD, read: true }]]) })).toThrow(NotPrecomputed);
    expect(() => replayRun(runs, { notification, subscriber, locale: 'en', results: new Map([['other', UNREAD]]) })).toThrow(NotPrecomputed);
    expect(resultsKey(new Map([['a', UNREAD], ['b', UNREAD]]))).toBe('a\u0001b\u0001');
    expect(resultsKey(new Map([['a', { ref: 'R-1' }]]))).toBeNull();
  });

  it('a replay for another notification object or another locale has no run', () => {
    const runs = made();
    expect(() => replayRun(runs, { notification: { ...notification }, subscriber, locale: 'en', results: new Map() })).toThrow(NotPrecomputed);
    expect(() => replayRun(runs, { notification, subscriber, locale: 'fr', results: new Map() })).toThrow(NotPrecomputed);
  });
});
