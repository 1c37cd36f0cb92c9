import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createTidings, type Message } from '../src/index.js';
import type { StorageRepositories } from '../src/storage.js';
import { manualClock } from '../src/testing/index.js';
import { storageWith } from '../src/testing/storage-with.js';
import { wrapRepositories } from '../src/wrap-repositories.js';
import { testEngine } from './helpers.js';

describe('inlineInApp', () => {
  it('in-app-only walks are stored with the trigger: no job, events emitted, decisions recorded', async () => {
    const { tidings } = testEngine({ inlineInApp: true });
    await tidings.workflows.upsert({ name: 'n', triggers: [{ identifier: 'n' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}' } }, { template: { type: 'in_app', content: 'again' } }] });
    const created: Message[] = [];
    tidings.events.on('message.created', ({ message }) => created.push(message));
    const result = await tidings.trigger({ name: 'n', to: [{ subscriberId: 'ada', firstName: 'Ada' }, 'bob'] });
    expect((await tidings.messages.byTransaction(result.transactionId!)).map((m) => [m.subscriberId, m.content])).toEqual([
      ['ada', 'Hi Ada'],
      ['bob', 'Hi '],
      ['ada', 'again'],
      ['bob', 'again'],
    ]);
    expect(created).toHaveLength(4);
    expect(await tidings.runDue()).toBe(0);
    expect((await tidings.explain(result.transactionId!, 'ada'))[0]!.entries.map((e) => e.decision)).toEqual(['delivered', 'delivered']);
  });

  it('walks with a delay, a digest or a provider step still go through a job, and give the same messages', async () => {
    const { tidings, clock } = testEngine({ inlineInApp: true });
    await tidings.workflows.upsert({
      name: 'd',
      triggers: [{ identifier: 'd' }],
      steps: [{ template: { type: 'in_app', content: 'now' } }, { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, { template: { type: 'in_app', content: 'later' } }],
    });
    await tidings.workflows.upsert({ name: 'e', triggers: [{ identifier: 'e' }], steps: [{ template: { type: 'email', subject: 's', content: 'c' } }] });
    const delayed = await tidings.trigger({ name: 'd', to: 'ada' });
    const mailed = await tidings.trigger({ name: 'e', to: { subscriberId: 'ada', email: 'a@x.io' } });
    expect(await tidings.messages.byTransaction(delayed.transactionId!)).toEqual([]);
    expect(await tidings.runDue()).toBe(2);
    clock.advance(60_000);
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(delayed.transactionId!)).map((m) => m.content)).toEqual(['now', 'later']);
    expect((await tidings.messages.byTransaction(mailed.transactionId!))[0]).toMatchObject({ channel: 'email', status: 'warning' });
  });

  it('a filtered-out step or a subscriber who turned in_app off gets nothing, as with jobs', async () => {
    const { tidings } = testEngine({ inlineInApp: true });
    await tidings.workflows.upsert({
      name: 'f',
      triggers: [{ identifier: 'f' }],
      steps: [{ template: { type: 'in_app', content: 'vip' }, filters: [{ isNegated: false, type: 'TEXT', value: 'AND', children: [{ field: 'tier', operator: 'EQUAL', value: 'vip', on: 'payload' }] }] }],
    });
    await tidings.subscribers.upsert({ subscriberId: 'quiet' });
    await tidings.preferences.update('quiet', { channels: { in_app: false } });
    const a = await tidings.trigger({ name: 'f', to: 'ada', payload: { tier: 'basic' } });
    const b = await tidings.trigger({ name: 'f', to: 'quiet', payload: { tier: 'vip' } });
    expect(await tidings.messages.byTransaction(a.transactionId!)).toEqual([]);
    expect(await tidings.messages.byTransaction(b.transactionId!)).toEqual([]);
    expect((await tidings.explain(b.transactionId!))[0]!.entries[0]).toMatchObject({ decision: 'skipped' });
    expect(await tidings.runDue()).toBe(0);
  });

  it("reads no preferences for the subscribers its trigger creates (they have none yet), and honours an existing subscriber's", async () => {
    const memory = memoryStorage();
    const readFor: string[][] = [];
    const watched = (tx: StorageRepositories): StorageRepositories => ({
      ...wrapRepositories(tx, (call) => call()),
      preferences: { ...tx.preferences, listMany: (env, ids) => (readFor.push([...ids]), tx.preferences.listMany(env, ids)) },
    });
    const tidings = createTidings({ storage: storageWith(memory, { transaction: (fn) => memory.transaction((tx) => fn(watched(tx))) }), clock: manualClock('2026-06-01T12:00:00.000Z'), inlineInApp: true });
    await tidings.workflows.upsert({ name: 'p', triggers: [{ identifier: 'p' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
    await tidings.subscribers.upsert({ subscriberId: 'quiet' });
    await tidings.preferences.update('quiet', { channels: { in_app: false } });
    readFor.length = 0;
    const result = await tidings.trigger({ name: 'p', to: ['quiet', 'new-one', { subscriberId: 'new-two', firstName: 'Two' }] });
    expect(readFor).toEqual([['quiet']]);
    expect((await tidings.messages.byTransaction(result.transactionId!)).map((m) => m.subscriberId).sort()).toEqual(['new-one', 'new-two']);
    expect((await tidings.explain(result.transactionId!, 'quiet'))[0]!.entries[0]).toMatchObject({ decision: 'skipped' });
    expect(await tidings.runDue()).toBe(0);
  });
});
