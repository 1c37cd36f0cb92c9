import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import { createTidings } from '../../engine/create-tidings.js';
import { messageMatches } from '../../messages/message-filter.js';
import { MAX_FILTER_DATA_KEYS, MAX_FILTER_TAG_GROUPS, MAX_FILTER_TAGS, MAX_FILTER_TAGS_PER_GROUP, SEVERITIES, type Message } from '../../schemas/index.js';
import type { MessageFilter } from '../../storage.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, messageRecord, plus } from '../fixtures.js';

const ada = { _id: 'i-ada', subscriberId: 'ada' };
const bob = { _id: 'i-bob', subscriberId: 'bob' };

const tagList = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const dataOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
/** `count` positions of `total` tags split into groups (the last takes the rest). */
const groupsOf = (count: number, total: number) => Array.from({ length: count }, (_, g) => tagList(g === count - 1 ? total - Math.floor(total / count) * (count - 1) : Math.floor(total / count), `g${g}-`));

export function messagesSuite({ get, backend }: SuiteContext): void {
  describe('messages', () => {
    it('messages.insertMany — idempotent by _id: a second insert of the same id stores nothing and is not returned', async () => {
      const s = get();
      const m = messageRecord('env-a', ada, {
        cta: { type: 'redirect', data: { url: 'https://x' }, action: { status: 'pending', buttons: [{ type: 'primary', content: 'Go' }] } },
        content: [{ type: 'text', content: 'Hi' }],
        payload: { deep: { list: [1, 'two', null] } },
        subject: 'S',
      });
      expect(await s.messages.insertMany('env-a', [m])).toEqual([m]);
      expect(await s.messages.insertMany('env-a', [{ ...m, content: 'changed' }])).toEqual([]);
      expect(await s.messages.getMany('env-a', ada._id, [m._id])).toEqual([m]);
    });

    it('messages — round trip keeps booleans, dates and JSON exactly (checked with a raw read where the backend offers one)', async () => {
      const s = get();
      const m = messageRecord('env-a', ada, { read: true, seen: true, lastReadDate: plus(T0, 5), createdAt: plus(T0, 1) });
      await s.messages.insertMany('env-a', [m]);
      expect((await s.messages.getMany('env-a', ada._id, [m._id]))[0]).toEqual(m);
      if (backend.rawMessage) {
        expect(await backend.rawMessage(s, m._id)).toEqual({ read: true, seen: true, createdAt: m.createdAt });
      }
    });

    it('messages.getMany — only the subscriber’s own messages in its environment', async () => {
      const s = get();
      const mine = messageRecord('env-a', ada);
      const theirs = messageRecord('env-a', bob);
      await s.messages.insertMany('env-a', [mine, theirs]);
      expect((await s.messages.getMany('env-a', ada._id, [mine._id, theirs._id])).map((m) => m._id)).toEqual([mine._id]);
      expect(await s.messages.getMany('env-b', ada._id, [mine._id])).toEqual([]);
    });

    it('messages.replaceMany — writes whole messages; unknown ids are ignored', async () => {
      const s = get();
      const m = messageRecord('env-a', ada);
      await s.messages.insertMany('env-a', [m]);
      const next: Message = { ...m, read: true, seen: true, lastReadDate: plus(T0, 9), cta: { action: { status: 'done', result: { type: 'primary', payload: { a: 1 } } } } };
      await s.messages.replaceMany('env-a', [next, messageRecord('env-a', ada)]);
      expect(await s.messages.getMany('env-a', ada._id, [m._id])).toEqual([next]);
      expect(await s.messages.counts('env-a', ada._id)).toEqual({ total: 1, unread: 0, unseen: 0 });
      // Another environment's replace changes nothing here.
      await s.messages.replaceMany('env-b', [{ ...next, content: 'from env-b' }]);
      expect((await s.messages.getMany('env-a', ada._id, [m._id]))[0]!.content).toBe(next.content);
    });

    it('messages.feed — newest first, cursor pages stay stable while new messages arrive, filters apply', async () => {
      const s = get();
      const made = Array.from({ length: 7 }, (_, i) =>
        messageRecord('env-a', ada, { createdAt: plus(T0, (i % 3) * 1000), read: i % 2 === 0, seen: i % 2 === 0, channel: i === 6 ? 'email' : 'in_app' }),
      );
      await s.messages.insertMany('env-a', made);
      await s.messages.insertMany('env-a', [messageRecord('env-a', bob)]);
      const expected = made
        .filter((m) => m.channel === 'in_app')
        .sort((a, b) => (a.createdAt === b.createdAt ? (a._id < b._id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
        .map((m) => m._id);
      const first = await s.messages.feed('env-a', ada._id, { limit: 4, channel: 'in_app', now: T0 });
      expect(first.items.map((m) => m._id)).toEqual(expected.slice(0, 4));
      await s.messages.insertMany('env-a', [messageRecord('env-a', ada, { createdAt: plus(T0, 99_000) })]);
      const second = await s.messages.feed('env-a', ada._id, { limit: 4, channel: 'in_app', cursor: first.nextCursor!, now: T0 });
      expect(second.items.map((m) => m._id)).toEqual(expected.slice(4));
      expect(second.nextCursor).toBeNull();
      const unread = await s.messages.feed('env-a', ada._id, { limit: 50, read: false, now: T0 });
      expect(unread.items.every((m) => !m.read)).toBe(true);
      expect(unread.items).toHaveLength(4);
      expect((await s.messages.feed('env-b', ada._id, { limit: 50, now: T0 })).items).toEqual([]);
    });

    it('messages.counts — total, unread and unseen per subscriber and channel', async () => {
      const s = get();
      await s.messages.insertMany('env-a', [
        messageRecord('env-a', ada, { read: true, seen: true }),
        messageRecord('env-a', ada, { seen: true }),
        messageRecord('env-a', ada),
        messageRecord('env-a', ada, { channel: 'email' }),
        messageRecord('env-a', bob),
      ]);
      expect(await s.messages.counts('env-a', ada._id, { channel: 'in_app' })).toEqual({ total: 3, unread: 2, unseen: 1 });
      expect(await s.messages.counts('env-a', ada._id)).toEqual({ total: 4, unread: 3, unseen: 2 });
      expect(await s.messages.counts('env-b', ada._id)).toEqual({ total: 0, unread: 0, unseen: 0 });
    });

    it('messages.listByTransaction — every message of one trigger, oldest first', async () => {
      const s = get();
      const a = messageRecord('env-a', ada, { transactionId: 't', createdAt: plus(T0, 2) });
      const b = messageRecord('env-a', bob, { transactionId: 't', createdAt: plus(T0, 1) });
      await s.messages.insertMany('env-a', [a, b, messageRecord('env-a', ada, { transactionId: 'other' })]);
      expect((await s.messages.listByTransaction('env-a', 't')).map((m) => m._id)).toEqual([b._id, a._id]);
      expect(await s.messages.listByTransaction('env-b', 't')).toEqual([]);
    });

    it('messages.feed / countMatching / idsMatching — for any messages and filter, exactly the messages core’s messageMatches selects', async () => {
      const s = get();
      const tag = fc.constantFrom('a', 'b', 'c');
      const when = fc.constantFrom(undefined, plus(T0, -60_000), plus(T0, 60_000));
      const value = fc.constantFrom<string | number | boolean>('x', 'y', 1, 2, true, false);
      const made = fc.record({
        read: fc.boolean(),
        seen: fc.boolean(),
        archived: fc.boolean(),
        snoozedUntil: when,
        tags: fc.uniqueArray(tag, { maxLength: 3 }),
        severity: fc.constantFrom(...SEVERITIES),
        data: fc.option(fc.dictionary(fc.constantFrom('k', 'm'), value, { maxKeys: 2 }), { nil: undefined }),
        at: fc.integer({ min: 0, max: 5 }),
        channel: fc.constantFrom('in_app' as const, 'email' as const),
        // Novu's `type:id` keys, sorted as messages store them; a bare type is a key stored before contexts were scoped.
        contextKeys: fc.option(fc.constantFrom<string[]>([], ['tenant:acme'], ['app:jira', 'tenant:acme'], ['tenant']), { nil: undefined }),
      });
      const filter = fc.record(
        {
          channel: fc.constantFrom('in_app' as const, 'email' as const),
          read: fc.boolean(),
          seen: fc.boolean(),
          archived: fc.boolean(),
          snoozed: fc.boolean(),
          tags: fc.array(fc.uniqueArray(tag, { maxLength: 2 }), { maxLength: 2 }),
          severity: fc.uniqueArray(fc.constantFrom(...SEVERITIES), { maxLength: 2 }),
          data: fc.dictionary(fc.constantFrom('k', 'm'), value, { minKeys: 1, maxKeys: 1 }),
          createdGte: fc.integer({ min: 0, max: 5 }).map((n) => plus(T0, n * 1000)),
          createdLte: fc.integer({ min: 0, max: 5 }).map((n) => plus(T0, n * 1000)),
          context: fc.constantFrom('', 'tenant:acme', 'app:jira,tenant:acme'),
        },
        { requiredKeys: [] },
      );
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(made, { maxLength: 8 }), filter, async (specs, given) => {
          const owner = { _id: `i-prop-${++run}`, subscriberId: `prop-${run}` };
          const messages = specs.map(({ at, snoozedUntil, data, contextKeys, ...rest }) =>
            messageRecord('env-a', owner, { ...rest, createdAt: plus(T0, at * 1000), ...(snoozedUntil && { snoozedUntil }), ...(data && { data }), ...(contextKeys && { contextKeys }) }),
          );
          await s.messages.insertMany('env-a', messages);
          const query: MessageFilter = { ...given, now: T0 };
          const newestFirst = (a: Message, b: Message) => (a.createdAt === b.createdAt ? (a._id < b._id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);
          const expected = messages.filter((m) => messageMatches(m, query)).sort(newestFirst).map((m) => m._id);
          expect((await s.messages.feed('env-a', owner._id, { ...query, limit: 100 })).items.map((m) => m._id)).toEqual(expected);
          expect(await s.messages.idsMatching('env-a', owner._id, query)).toEqual(expected);
          expect(await s.messages.countMatching('env-a', owner._id, [query, { now: T0 }])).toEqual([expected.length, messages.length]);
          if (expected.length > 1) expect((await s.messages.feed('env-a', owner._id, { ...query, limit: 100, offset: 1 })).items.map((m) => m._id)).toEqual(expected.slice(1));
        }),
        { numRuns: s.capabilities.multiProcess ? 25 : 60 },
      );
    });

    it('messages.deleteMany — only the subscriber’s messages, counted', async () => {
      const s = get();
      const mine = [messageRecord('env-a', ada), messageRecord('env-a', ada)];
      const theirs = messageRecord('env-a', bob);
      await s.messages.insertMany('env-a', [...mine, theirs]);
      expect(await s.messages.deleteMany('env-a', ada._id, [mine[0]!._id, theirs._id, 'missing'])).toBe(1);
      expect((await s.messages.getMany('env-a', ada._id, mine.map((m) => m._id))).map((m) => m._id)).toEqual([mine[1]!._id]);
      expect(await s.messages.getMany('env-a', bob._id, [theirs._id])).toHaveLength(1);
      expect(await s.messages.deleteMany('env-b', bob._id, [theirs._id])).toBe(0);
    });

    it('messages.feed / counts — archived and snoozed messages by filter (snoozed until their time), tag filters', async () => {
      const s = get();
      const plain = messageRecord('env-a', ada, { tags: ['billing'] });
      const archived = messageRecord('env-a', ada, { archived: true, tags: ['billing'] });
      const snoozed = messageRecord('env-a', ada, { snoozedUntil: plus(T0, 60_000), tags: ['social', 'b_1%'] });
      await s.messages.insertMany('env-a', [plain, archived, snoozed]);
      const ids = async (query: Parameters<typeof s.messages.feed>[2]) => (await s.messages.feed('env-a', ada._id, query)).items.map((m) => m._id).sort();
      const inbox = { archived: false, snoozed: false };
      expect(await ids({ limit: 10, now: T0, ...inbox })).toEqual([plain._id]);
      expect(await ids({ limit: 10, now: plus(T0, 60_000), ...inbox })).toEqual([plain._id, snoozed._id].sort());
      expect(await ids({ limit: 10, now: T0, snoozed: true })).toEqual([snoozed._id]);
      expect(await ids({ limit: 10, now: T0, archived: true })).toEqual([archived._id]);
      expect(await ids({ limit: 10, now: T0 })).toEqual([plain._id, archived._id, snoozed._id].sort());
      expect(await ids({ limit: 10, now: T0, tags: [['social']] })).toEqual([snoozed._id]);
      expect(await ids({ limit: 10, now: T0, tags: [['b_1%']] })).toEqual([snoozed._id]);
      expect(await ids({ limit: 10, now: T0, tags: [['b%']] })).toEqual([]);
      expect(await ids({ limit: 10, now: T0, tags: [['billing', 'social']], ...inbox })).toEqual([plain._id]);
      expect(await ids({ limit: 10, now: T0, tags: [['billing'], ['social']] })).toEqual([]);
      expect(await ids({ limit: 10, now: T0, tags: [['social'], ['b_1%', 'x']] })).toEqual([snoozed._id]);
      expect(await s.messages.counts('env-a', ada._id, { now: T0 })).toEqual({ total: 1, unread: 1, unseen: 1 });
      expect(await s.messages.counts('env-a', ada._id, { now: plus(T0, 60_000) })).toEqual({ total: 2, unread: 2, unseen: 2 });
      await s.messages.replaceMany('env-a', [{ ...archived, archived: false }]);
      expect(await s.messages.counts('env-a', ada._id, { now: T0 })).toEqual({ total: 2, unread: 2, unseen: 2 });
    });

    it('tidings.messages — filters at every cap run on this backend; one past a cap (or 1,100 tags) is a validation_failed naming the member, and changes nothing', async () => {
      const s = get();
      const tidings = createTidings({ storage: s, clock: manualClock(T0), environmentId: 'env-a' });
      const reader = await tidings.subscribers.upsert({ subscriberId: 'ada' });
      const owner = { _id: reader._id, subscriberId: 'ada' };
      const flat = tagList(MAX_FILTER_TAGS_PER_GROUP);
      const groups = groupsOf(MAX_FILTER_TAG_GROUPS, MAX_FILTER_TAGS);
      const data = dataOf(MAX_FILTER_DATA_KEYS);
      const match = messageRecord('env-a', owner, { tags: [flat.at(-1)!, ...groups.map((g) => g.at(-1)!)], data, severity: 'low' });
      await s.messages.insertMany('env-a', [match, messageRecord('env-a', owner, { tags: ['other'] })]);

      // At the caps, all at once: the backend runs the query (no "expression tree too large", no stack overflow).
      const atCaps = { tags: groups, data, severity: [...SEVERITIES] };
      expect((await tidings.messages.feed('ada', { ...atCaps, limit: 10 })).items.map((m) => m._id)).toEqual([match._id]);
      expect((await tidings.messages.count('ada', [atCaps, { tags: flat, data }])).map((c) => c.count)).toEqual([1, 1]);

      const refused = async (run: () => Promise<unknown>, path: string) => {
        const error = (await run().then(() => null, (e: unknown) => e)) as { code?: string; issues?: { path: string }[] } | null;
        expect(error?.code).toBe('validation_failed');
        expect(error?.issues?.map((i) => i.path)).toEqual([path]);
      };
      const pastCaps: [Record<string, unknown>, string][] = [
        [{ tags: tagList(MAX_FILTER_TAGS_PER_GROUP + 1) }, 'tags'],
        [{ tags: tagList(1_100) }, 'tags'],
        [{ tags: groupsOf(MAX_FILTER_TAG_GROUPS + 1, MAX_FILTER_TAG_GROUPS + 1) }, 'tags'],
        [{ tags: [['a'], tagList(MAX_FILTER_TAGS_PER_GROUP + 1)] }, 'tags[1]'],
        [{ tags: groupsOf(3, MAX_FILTER_TAGS + 1) }, 'tags'],
        [{ severity: [...SEVERITIES, 'low'] }, 'severity'],
        [{ data: dataOf(MAX_FILTER_DATA_KEYS + 1) }, 'data'],
      ];
      for (const [filter, path] of pastCaps) {
        await refused(() => tidings.messages.feed('ada', filter), path);
        await refused(() => tidings.messages.count('ada', [{}, filter]), `[1].${path}`);
        await refused(() => tidings.messages.readAll('ada', filter), path);
        await refused(() => tidings.messages.deleteAll('ada', filter), path);
      }
      expect(await tidings.messages.counts('ada')).toEqual({ total: 2, unread: 2, unseen: 2 });
    });
  });
}
