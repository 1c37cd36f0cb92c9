import { describe, expect, it } from 'vitest';
import { isTidingsError } from '../src/index.js';
import { inAppWorkflow, testEngine } from './helpers.js';

/** first (in-app), a two-hour delay, second (in-app): a trigger leaves one message and one walk job. */
const delayedWorkflow = {
  name: 'd',
  triggers: [{ identifier: 'd' }],
  steps: [
    { template: { type: 'in_app' as const, content: 'first {{ payload.n }}' } },
    { template: { type: 'delay' as const }, metadata: { type: 'regular' as const, amount: 2, unit: 'hours' as const } },
    { template: { type: 'in_app' as const, content: 'second {{ payload.n }}' } },
  ],
};

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      if (!isTidingsError(error, 'validation_failed')) throw error;
      return error.issues.map((i) => i.path);
    },
  );

describe('tidings.activity', () => {
  it('notifications: newest first, a page at a time by cursor, within createdGte/createdLte', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('hello'));
    const made: string[] = [];
    for (let n = 0; n < 5; n++) {
      made.push((await tidings.trigger({ name: 'hello', to: 'ada', payload: { n } })).transactionId!);
      clock.advance(60_000);
    }
    const first = await tidings.activity.notifications({ limit: 2 });
    expect(first.items.map((n) => n.transactionId)).toEqual([made[4], made[3]]);
    expect(first.nextCursor).not.toBeNull();
    const second = await tidings.activity.notifications({ limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((n) => n.transactionId)).toEqual([made[2], made[1]]);
    const last = await tidings.activity.notifications({ limit: 2, cursor: second.nextCursor! });
    expect(last).toEqual({ items: [expect.objectContaining({ transactionId: made[0] })], nextCursor: null });

    // 12:01 to 12:03, both bounds included.
    const bounded = await tidings.activity.notifications({ createdGte: '2026-06-01T12:01:00.000Z', createdLte: '2026-06-01T14:03:00+02:00' });
    expect(bounded.items.map((n) => n.transactionId)).toEqual([made[3], made[2], made[1]]);
    expect((await tidings.activity.notifications()).items).toHaveLength(5);

    expect(await refusal(tidings.activity.notifications({ cursor: 'not-a-cursor' }))).toEqual(['cursor']);
    expect(await refusal(tidings.activity.notifications({ limit: 0, createdGte: 'yesterday' }))).toEqual(expect.arrayContaining(['limit', 'createdGte']));
  });

  it('transaction: the notification, its messages oldest first, its pending jobs; null when unknown', async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(delayedWorkflow);
    const { transactionId } = await tidings.trigger({ name: 'd', to: ['ada', 'bob'], payload: { n: 1 } });
    await tidings.runDue();
    const found = await tidings.activity.transaction(transactionId!);
    expect(found?.notification.transactionId).toBe(transactionId);
    expect(found?.messages.map((m) => [m.subscriberId, m.content]).sort()).toEqual([
      ['ada', 'first 1'],
      ['bob', 'first 1'],
    ]);
    expect(found?.jobs.map((j) => [j.kind, j.subscriberId, j.runAt]).sort()).toEqual([
      ['walk', 'ada', '2026-06-01T14:00:00.000Z'],
      ['walk', 'bob', '2026-06-01T14:00:00.000Z'],
    ]);
    expect(found?.digests).toEqual([]);
    expect((await tidings.activity.notification(transactionId!))?._id).toBe(found?.notification._id);

    clock.advance(2 * 3_600_000);
    await tidings.runDue();
    const done = await tidings.activity.transaction(transactionId!);
    expect(done?.messages).toHaveLength(4);
    expect(done?.messages.map((m) => m.createdAt)).toEqual([...done!.messages.map((m) => m.createdAt)].sort());
    expect(done?.jobs).toEqual([]);

    expect(await tidings.activity.transaction('nope')).toBeNull();
    expect(await tidings.activity.notification('nope')).toBeNull();
    expect(await refusal(tidings.activity.transaction(''))).toEqual(['']);
  });

  it("a subscriber's messages (every channel, archived too) page by page, and what is pending for them", async () => {
    const { tidings, clock } = testEngine();
    await tidings.workflows.upsert(delayedWorkflow);
    const made: string[] = [];
    for (let n = 0; n < 3; n++) {
      made.push((await tidings.trigger({ name: 'd', to: 'ada', payload: { n } })).transactionId!);
      await tidings.runDue();
      clock.advance(60_000);
    }
    await tidings.trigger({ name: 'd', to: 'bob', payload: { n: 9 } });
    await tidings.runDue();
    const [oldest] = await tidings.messages.byTransaction(made[0]!);
    await tidings.messages.archive('ada', oldest!._id);

    const page = await tidings.activity.subscriberMessages('ada', { limit: 2 });
    expect(page.items.map((m) => m.content)).toEqual(['first 2', 'first 1']);
    const rest = await tidings.activity.subscriberMessages('ada', { limit: 2, cursor: page.nextCursor! });
    expect(rest).toEqual({ items: [expect.objectContaining({ content: 'first 0', archived: true })], nextCursor: null });
    // The inbox's feed leaves the archived message out; the activity read does not.
    expect((await tidings.messages.feed('ada')).items.map((m) => m.content)).toEqual(['first 2', 'first 1']);
    const recent = await tidings.activity.subscriberMessages('ada', { createdGte: '2026-06-01T12:01:00.000Z' });
    expect(recent.items.map((m) => m.content)).toEqual(['first 2', 'first 1']);
    expect(await tidings.activity.subscriberMessages('nobody')).toEqual({ items: [], nextCursor: null });

    const pending = await tidings.activity.subscriberPending('ada');
    expect(pending.jobs.map((j) => j.transactionId).sort()).toEqual([...made].sort());
    expect(pending.digests).toEqual([]);
    expect(await tidings.activity.subscriberPending('nobody')).toEqual({ jobs: [], digests: [] });
  });

  it('open digests of a trigger and of a subscriber', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert({
      name: 'digest',
      triggers: [{ identifier: 'digest' }],
      steps: [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 10, unit: 'minutes' } }, { template: { type: 'in_app', content: '{{ step.total_count }}' } }],
    });
    const { transactionId } = await tidings.trigger({ name: 'digest', to: 'ada' });
    await tidings.trigger({ name: 'digest', to: 'ada' });
    await tidings.runDue();
    const [digest] = (await tidings.activity.transaction(transactionId!))!.digests;
    expect(digest).toMatchObject({ subscriberId: 'ada', status: 'open', dueAt: '2026-06-01T12:10:00.000Z' });
    expect(digest!.events).toHaveLength(2);
    expect((await tidings.activity.subscriberPending('ada')).digests.map((d) => d.id)).toEqual([digest!.id]);
  });

  it('notifications and workflows by id: unknown ids left out, repeats read once, an empty list reads nothing', async () => {
    const { tidings } = testEngine();
    const hello = await tidings.workflows.upsert(inAppWorkflow('hello'));
    const bye = await tidings.workflows.upsert(inAppWorkflow('bye'));
    const a = await tidings.trigger({ name: 'hello', to: 'ada' });
    const b = await tidings.trigger({ name: 'bye', to: 'ada' });
    const ids = await Promise.all([a, b].map(async (t) => (await tidings.activity.notification(t.transactionId!))!._id));
    const notifications = await tidings.activity.notificationsById([...ids, ids[0]!, 'missing']);
    expect(notifications.map((n) => n.transactionId).sort()).toEqual([a.transactionId, b.transactionId].sort());
    expect(await tidings.activity.notificationsById([])).toEqual([]);
    const workflows = await tidings.activity.workflowsById([bye._id, hello._id, 'missing', bye._id]);
    expect(workflows.map((w) => w.identifier).sort()).toEqual(['bye', 'hello']);
    expect(await tidings.activity.workflowsById([])).toEqual([]);
    expect(await refusal(tidings.activity.workflowsById([''] as string[]))).toEqual(['[0]']);
  });
});

describe('people reads: subscribers.page, subscribers.getMany, topics.memberPage', () => {
  it('pages visit every subscriber once; getMany leaves unknown ids out', async () => {
    const { tidings } = testEngine();
    const ids = Array.from({ length: 7 }, (_, i) => `s${i}`);
    for (const subscriberId of ids) await tidings.subscribers.upsert({ subscriberId, firstName: subscriberId.toUpperCase() });
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: string[] = await tidings.subscribers.page({ after, limit: 3 });
      expect(page.length).toBeLessThanOrEqual(3);
      if (page.length === 0) break;
      seen.push(...page);
      after = page.at(-1)!;
    }
    expect(seen.sort()).toEqual(ids);
    expect(await tidings.subscribers.page({ limit: 100 })).toHaveLength(7);

    const found = await tidings.subscribers.getMany(['s1', 's5', 'nobody', 's1']);
    expect(found.map((s) => [s.subscriberId, s.firstName]).sort()).toEqual([
      ['s1', 'S1'],
      ['s5', 'S5'],
    ]);
    expect(await tidings.subscribers.getMany([])).toEqual([]);
    expect(await refusal(tidings.subscribers.page({ after: null, limit: 0 }))).toEqual(['limit']);
  });

  it("a topic's members page by page; an unknown topic has none", async () => {
    const { tidings } = testEngine();
    for (const subscriberId of ['a', 'b', 'c', 'd', 'e']) await tidings.subscribers.upsert({ subscriberId });
    await tidings.topics.addSubscribers('team', ['a', 'c', 'e', 'ghost']);
    await tidings.topics.addSubscribers('other', ['b']);
    const first = await tidings.topics.memberPage('team', { after: null, limit: 2 });
    const second = await tidings.topics.memberPage('team', { after: first.at(-1)!, limit: 2 });
    expect(first).toHaveLength(2);
    expect([...first, ...second].sort()).toEqual(['a', 'c', 'e']);
    expect(await tidings.topics.memberPage('team', { after: second.at(-1)!, limit: 2 })).toEqual([]);
    expect(await tidings.topics.memberPage('nothing', { limit: 10 })).toEqual([]);
    expect(await refusal(tidings.topics.memberPage('', { limit: 10 }))).toEqual(['']);
  });
});

describe('tidings.idempotency', () => {
  const request = { key: 'k1', fingerprint: 'f1', inFlightMs: 60_000, keepMs: 3_600_000 };
  const response = { status: 201, body: '{"ok":true}', headers: { 'content-type': 'application/json' } };

  it('begin → in flight for others → complete → replayed; another fingerprint sees the stored one', async () => {
    const { tidings, clock } = testEngine();
    expect(await tidings.idempotency.begin(request)).toEqual({ state: 'started', since: '2026-06-01T12:00:00.000Z' });
    expect(await tidings.idempotency.begin({ ...request, fingerprint: 'f2' })).toEqual({ state: 'in_flight', fingerprint: 'f1' });
    await tidings.idempotency.complete({ key: 'k1', response, keepMs: 3_600_000 });
    clock.advance(59 * 60_000);
    expect(await tidings.idempotency.begin(request)).toEqual({ state: 'completed', fingerprint: 'f1', response });
    // Kept for keepMs from completion: past it, the key starts afresh.
    clock.advance(2 * 60_000);
    expect(await tidings.idempotency.begin(request)).toEqual({ state: 'started', since: '2026-06-01T13:01:00.000Z' });
  });

  it('a released key may begin again and keeps its since; an in-flight key frees up after inFlightMs', async () => {
    const { tidings, clock } = testEngine();
    await tidings.idempotency.begin(request);
    clock.advance(1_000);
    await tidings.idempotency.release('k1');
    expect(await tidings.idempotency.begin(request)).toEqual({ state: 'started', since: '2026-06-01T12:00:00.000Z' });
    expect(await tidings.idempotency.begin(request)).toEqual({ state: 'in_flight', fingerprint: 'f1' });
    clock.advance(60_001);
    expect(await tidings.idempotency.begin(request)).toMatchObject({ state: 'started' });
  });

  it('purgeExpired deletes only the records expired by the clock', async () => {
    const { tidings, clock } = testEngine();
    await tidings.idempotency.begin({ ...request, key: 'short' });
    await tidings.idempotency.complete({ key: 'short', response, keepMs: 1_000 });
    await tidings.idempotency.begin({ ...request, key: 'long' });
    await tidings.idempotency.complete({ key: 'long', response, keepMs: 3_600_000 });
    expect(await tidings.idempotency.purgeExpired()).toBe(0);
    clock.advance(2_000);
    expect(await tidings.idempotency.purgeExpired()).toBe(1);
    expect(await tidings.idempotency.begin({ ...request, key: 'long' })).toMatchObject({ state: 'completed' });
  });

  it('refuses keys and durations out of bounds, naming them', async () => {
    const { tidings } = testEngine();
    expect(await refusal(tidings.idempotency.begin({ ...request, key: '', inFlightMs: 0 }))).toEqual(expect.arrayContaining(['key', 'inFlightMs']));
    expect(await refusal(tidings.idempotency.begin({ ...request, key: 'x'.repeat(256) }))).toEqual(['key']);
    expect(await refusal(tidings.idempotency.complete({ key: 'k', response: { ...response, status: 42 }, keepMs: 1 }))).toEqual(['response.status']);
    expect(await refusal(tidings.idempotency.release(''))).toEqual(['']);
  });
});

describe('tidings.probeStorage', () => {
  it('answers with when the next job is due, and fails as the storage does', async () => {
    const { tidings } = testEngine();
    expect(await tidings.probeStorage()).toEqual({ nextJobDueAt: null });
    await tidings.workflows.upsert(delayedWorkflow);
    await tidings.trigger({ name: 'd', to: 'ada' });
    await tidings.runDue();
    expect(await tidings.probeStorage()).toEqual({ nextJobDueAt: '2026-06-01T14:00:00.000Z' });

    const { memoryStorage } = await import('@tidings/memory');
    const { createTidings } = await import('../src/index.js');
    const base = memoryStorage();
    const down = createTidings({ storage: { ...base, jobs: { ...base.jobs, nextDueAt: () => Promise.reject(new Error('database is down')) } } });
    await expect(down.probeStorage()).rejects.toThrow('database is down');
  });
});
