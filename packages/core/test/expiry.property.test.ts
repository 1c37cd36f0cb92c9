import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Message } from '../src/index.js';
import { isExpired } from '../src/internal.js';
import { testEngine } from './helpers.js';

const MINUTE = 60_000;
const ids = (messages: readonly Message[]) => messages.map((m) => m._id).sort();

/** A trigger: its expiresAt (minutes ahead, or none) and whether its workflow's step has a ttl. */
const trigger = fc.record({ expiresIn: fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined }), ttl: fc.boolean(), to: fc.constantFrom('ada', 'bob') });

describe('expiry — properties with the manual clock', () => {
  it('at any clock, the feed and counts hold exactly the unexpired messages, feed and expired together are every message stored, and a sweep leaves no expired message', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(trigger, { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 4 }), async (triggers, steps) => {
        const { tidings, clock } = testEngine();
        await tidings.workflows.upsert({ name: 'plain', triggers: [{ identifier: 'plain' }], steps: [{ template: { type: 'in_app', content: 'plain' } }] });
        await tidings.workflows.upsert({ name: 'brief', triggers: [{ identifier: 'brief' }], steps: [{ template: { type: 'in_app', content: 'brief' }, ttl: { amount: 30, unit: 'minutes' } }] });
        const transactionIds: string[] = [];
        for (const t of triggers) {
          const expiresAt = t.expiresIn === undefined ? undefined : new Date(clock.now().getTime() + t.expiresIn * MINUTE).toISOString();
          const result = await tidings.trigger({ name: t.ttl ? 'brief' : 'plain', to: t.to, ...(expiresAt !== undefined && { expiresAt }) });
          transactionIds.push(result.transactionId!);
        }
        for (const minutes of steps) {
          clock.advance(minutes * MINUTE);
          const now = clock.now().toISOString();
          const stored = (await Promise.all(transactionIds.map((tx) => tidings.messages.byTransaction(tx)))).flat();
          for (const subscriberId of ['ada', 'bob']) {
            const theirs = stored.filter((m) => m.subscriberId === subscriberId);
            const live = theirs.filter((m) => !isExpired(m, now));
            const feed = (await tidings.messages.feed(subscriberId, { limit: 100 })).items;
            expect(ids(feed)).toEqual(ids(live));
            expect([...ids(feed), ...ids(theirs.filter((m) => isExpired(m, now)))].sort()).toEqual(ids(theirs));
            expect(await tidings.messages.counts(subscriberId)).toEqual({ total: live.length, unread: live.length, unseen: live.length });
          }
          await tidings.runDue();
          const left = (await Promise.all(transactionIds.map((tx) => tidings.messages.byTransaction(tx)))).flat();
          expect(left.filter((m) => isExpired(m, now))).toEqual([]);
        }
      }),
      { numRuns: 40 },
    );
  });
});
