import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMarkAs, isTidingsError, type Message } from '../src/index.js';
import { applyMarkFlags } from '../src/internal.js';
import { MARK_VALUES } from '../src/schemas.js';
import { fixtures } from '../src/testing/index.js';
import { testEngine } from './helpers.js';

async function inbox(count: number) {
  const env = testEngine();
  await env.tidings.workflows.upsert({ name: 'n', triggers: [{ identifier: 'n' }], tags: ['billing'], steps: [{ template: { type: 'in_app', content: '#{{ payload.i }}' } }] });
  await env.tidings.workflows.upsert({ name: 's', triggers: [{ identifier: 's' }], tags: ['social'], steps: [{ template: { type: 'in_app', content: 'social #{{ payload.i }}' } }] });
  for (let i = 0; i < count; i++) {
    await env.tidings.trigger({ name: 'n', to: 'ada', payload: { i } });
    env.clock.advance(1_000);
  }
  await env.tidings.runDue();
  return env;
}

describe('markAs — properties', () => {
  it('for any sequence of marks: read implies seen after each step, dates never move backwards, and marking twice equals once', () => {
    const base = fixtures.messageRecord('e', { _id: 'i', subscriberId: 'u' });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...MARK_VALUES), fc.integer({ min: -5_000, max: 60_000 })), { maxLength: 30 }), (steps) => {
        let message: Message = base;
        let clock = Date.parse(fixtures.T0);
        for (const [mark, delta] of steps) {
          clock += delta;
          const now = new Date(clock).toISOString();
          const next = applyMarkAs(message, mark, now);
          expect(!next.read || next.seen).toBe(true);
          for (const key of ['lastReadDate', 'lastSeenDate'] as const) {
            if (message[key] !== undefined) expect(next[key]! >= message[key]!).toBe(true);
          }
          expect(applyMarkAs(next, mark, now)).toEqual(next);
          message = next;
        }
      }),
    );
  });
});

describe('mark flags ({ seen?, read? }, the older clients’ form) — property', () => {
  it('for any flags and any starting state: a flag given is the flag after, unless it would break "read implies seen" (seen: false wins)', () => {
    const flag = fc.option(fc.boolean(), { nil: undefined });
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), flag, flag, (wasRead, wasSeen, read, seen) => {
        const start: Message = { ...fixtures.messageRecord('e', { _id: 'i', subscriberId: 'u' }), read: wasRead, seen: wasSeen || wasRead };
        const after = applyMarkFlags(start, { ...(read !== undefined && { read }), ...(seen !== undefined && { seen }) }, fixtures.T0);
        // The reference: take the flags given and keep the others; an explicit unseen clears read, reading sees.
        const expectedRead = seen === false ? false : (read ?? start.read);
        const expectedSeen = seen ?? (read === true ? true : start.seen);
        expect({ read: after.read, seen: after.seen }).toEqual({ read: expectedRead, seen: expectedSeen });
        expect(after.lastReadDate !== start.lastReadDate).toBe(read !== undefined);
      }),
    );
  });
});

describe('the in-app inbox', () => {
  it('cursor pages stay stable while new messages arrive', async () => {
    const { tidings, clock } = await inbox(7);
    const first = await tidings.messages.feed('ada', { limit: 3 });
    expect(first.items.map((m) => m.content)).toEqual(['#6', '#5', '#4']);
    clock.advance(1_000);
    await tidings.trigger({ name: 'n', to: 'ada', payload: { i: 99 } });
    await tidings.runDue();
    const second = await tidings.messages.feed('ada', { limit: 3, cursor: first.nextCursor! });
    const third = await tidings.messages.feed('ada', { limit: 3, cursor: second.nextCursor! });
    expect([...second.items, ...third.items].map((m) => m.content)).toEqual(['#3', '#2', '#1', '#0']);
    expect(third.nextCursor).toBeNull();
    expect((await tidings.messages.feed('ada', { limit: 1 })).items[0]!.content).toBe('#99');
  });

  it('snooze hides a message until its time, then it is back unseen with a new delivery date', async () => {
    const { tidings, clock } = await inbox(2);
    const [latest] = (await tidings.messages.feed('ada')).items;
    await tidings.messages.markAs('ada', { messageId: latest!._id, markAs: 'read' });
    const until = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const snoozed = await tidings.messages.snooze('ada', latest!._id, { until });
    expect(snoozed.snoozedUntil).toBe(until);
    expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['#0']);
    expect(await tidings.messages.counts('ada')).toEqual({ total: 1, unread: 1, unseen: 1 });
    clock.set(until);
    await tidings.runDue();
    const [back] = (await tidings.messages.feed('ada')).items;
    expect(back).toMatchObject({ _id: latest!._id, seen: false, read: false, deliveredAt: [latest!.deliveredAt[0], until] });
    expect(back!.snoozedUntil).toBeUndefined();
    await expect(tidings.messages.snooze('ada', latest!._id, { until: '2020-01-01T00:00:00Z' })).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
  });

  it('unsnooze brings it back at once and the pending snooze does nothing later', async () => {
    const { tidings, clock } = await inbox(1);
    const [message] = (await tidings.messages.feed('ada')).items;
    await tidings.messages.snooze('ada', message!._id, { until: new Date(clock.now().getTime() + 60_000).toISOString() });
    await tidings.messages.markAs('ada', { messageId: message!._id, markAs: 'seen' });
    const back = await tidings.messages.unsnooze('ada', message!._id);
    expect(back).toMatchObject({ seen: false });
    expect(back.deliveredAt).toHaveLength(2);
    clock.advance(120_000);
    expect(await tidings.runDue()).toBe(0);
    expect((await tidings.messages.feed('ada')).items[0]!.deliveredAt).toHaveLength(2);
    await expect(tidings.messages.unsnooze('ada', message!._id)).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
  });

  it('archive takes messages out of the feed and counts; unarchive brings them back; tags filter', async () => {
    const { tidings } = await inbox(3);
    await tidings.trigger({ name: 's', to: 'ada', payload: { i: 1 } });
    await tidings.runDue();
    const items = (await tidings.messages.feed('ada')).items;
    await tidings.messages.archive('ada', [items[1]!._id, items[2]!._id]);
    expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['social #1', '#0']);
    expect((await tidings.messages.feed('ada', { archived: true })).items.map((m) => m.content)).toEqual(['#2', '#1']);
    expect(await tidings.messages.counts('ada')).toEqual({ total: 2, unread: 2, unseen: 2 });
    await tidings.messages.unarchive('ada', items[1]!._id);
    expect((await tidings.messages.feed('ada', { tags: ['billing'] })).items.map((m) => m.content)).toEqual(['#2', '#0']);
    expect((await tidings.messages.feed('ada', { tags: ['social'] })).items.map((m) => m.content)).toEqual(['social #1']);
  });

  it('counts stay right under concurrent marks', async () => {
    const { tidings } = await inbox(20);
    const ids = (await tidings.messages.feed('ada', { limit: 20 })).items.map((m) => m._id);
    await Promise.all(ids.map((id, i) => tidings.messages.markAs('ada', { messageId: id, markAs: i % 2 ? 'read' : 'seen' })));
    expect(await tidings.messages.counts('ada')).toEqual({ total: 20, unread: 10, unseen: 0 });
  });
});
