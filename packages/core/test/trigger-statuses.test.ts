import { describe, expect, expectTypeOf, it } from 'vitest';
import { isTidingsError } from '../src/index.js';
import { inAppWorkflow, testEngine } from './helpers.js';

describe('trigger statuses (DESIGN §6)', () => {
  it('each status in its order of precedence', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    await tidings.workflows.upsert(inAppWorkflow('off', 'x', { active: false }));
    await tidings.workflows.upsert(inAppWorkflow('draft', 'x', { draft: true }));
    await tidings.workflows.upsert({ name: 'empty', triggers: [{ identifier: 'empty' }], steps: [] });
    await tidings.workflows.upsert({ name: 'idle', triggers: [{ identifier: 'idle' }], steps: [{ active: false, template: { type: 'in_app', content: 'x' } }] });
    await tidings.tenants.upsert({ identifier: 'acme' });
    const results = await tidings.triggerBulk([
      { name: 'ok', to: 'ada' },
      { name: 'missing', to: 'ada' },
      { name: 'off', to: 'ada' },
      { name: 'draft', to: 'ada' },
      { name: 'empty', to: 'ada' },
      { name: 'idle', to: 'ada' },
      { name: 'ok', to: 'ada', tenant: 'nobody' },
      { name: 'ok', to: 'ada', tenant: 'acme' },
      { name: 'ok', to: [] },
      { name: 'ok', to: [{ type: 'Topic', topicKey: 'unknown' }] },
      { name: 'ok', to: '   ' },
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'processed',
      'error',
      'trigger_not_active',
      'trigger_not_active',
      'no_workflow_steps_defined',
      'no_workflow_active_steps_defined',
      'no_tenant_found',
      'processed',
      'invalid_recipients',
      'invalid_recipients',
      'invalid_recipients',
    ]);
    expect(results[1]!.error).toEqual(['workflow_not_found']);
    expect(results.every((r) => r.acknowledged)).toBe(true);
    expect(results[0]!.transactionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an invalid event gets one message per bad field, and the others still process', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    const results = await tidings.triggerBulk([
      { payload: 'nope' } as never,
      { name: 'ok', to: 'ada' },
      42 as never,
    ]);
    expect(results[0]).toMatchObject({ acknowledged: true, status: 'error' });
    expect(results[0]!.error!.some((e) => e.startsWith('name:'))).toBe(true);
    expect(results[0]!.error!.some((e) => e.startsWith('to:'))).toBe(true);
    expect(results[0]!.error!.some((e) => e.startsWith('payload:'))).toBe(true);
    expect(results[1]!.status).toBe('processed');
    expect(results[2]).toEqual({ acknowledged: true, status: 'error', error: ['event must be an object'] });
  });

  it('a bad recipient is named by its place in the list; a `to` of no kind it takes says what it takes', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    const results = await tidings.triggerBulk([
      { name: 'ok', to: ['ada', { subscriberId: 'bob', email: 7 }] } as never,
      { name: 'ok', to: [{ subscriberId: 5 }, { type: 'Topic', topicKey: '' }] } as never,
      { name: 'ok', to: 5 } as never,
      { name: 'ok' } as never,
      { name: 'ok', to: [{ subscriberId: 'cy', firstName: 'Cy' }] },
    ]);
    expect(results[0]!.error).toEqual(['to[1].email: Invalid input: expected string, received number']);
    expect(results[1]!.error).toEqual(['to[0].subscriberId: Invalid input: expected string, received number', 'to[1].topicKey: must not be empty']);
    expect(results[2]!.error).toEqual(['to: must be a subscriberId, a subscriber, a topic or an array of them']);
    expect(results[3]!.error).toEqual(['to: is required: a subscriberId, a subscriber, a topic or an array of them']);
    expect(results[4]!.status).toBe('processed');
    expect(await tidings.subscribers.get('bob')).toBeNull();
  });

  it('a caller transactionId is echoed; a duplicate is refused even across calls and stores nothing', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    expect(await tidings.trigger({ name: 'ok', to: 'ada', transactionId: 'order-1' })).toEqual({ acknowledged: true, status: 'processed', transactionId: 'order-1' });
    await expect(tidings.trigger({ name: 'ok', to: { subscriberId: 'bob' }, transactionId: 'order-1' })).rejects.toMatchObject({ name: 'TidingsError', code: 'conflict', issues: [{ path: 'transactionId' }] });
    expect(await tidings.triggerBulk([{ name: 'ok', to: { subscriberId: 'bob' }, transactionId: 'order-1' }])).toEqual([{ acknowledged: true, status: 'error', error: ['duplicate_transaction_id'], transactionId: 'order-1' }]);
    expect(await tidings.subscribers.get('bob')).toBeNull();
  });

  it('bulk: none or more than 100 events refuse the whole call and process nothing', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    const events = Array.from({ length: 101 }, (_, i) => ({ name: 'ok', to: `s${i}` }));
    await expect(tidings.triggerBulk(events)).rejects.toSatisfy((e) => isTidingsError(e, 'too_many_events') && e.message === 'events must contain no more than 100 elements');
    await expect(tidings.triggerBulk([])).rejects.toSatisfy((e) => isTidingsError(e, 'validation_failed'));
    expect(await tidings.subscribers.get('s0')).toBeNull();
    expect(await tidings.runDue()).toBe(0);
    expect(await tidings.triggerBulk(events.slice(0, 100))).toHaveLength(100);
  });
});

describe('recipients', () => {
  it('inline subscribers: only given fields change, data is replaced, string ids create bare subscribers', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', email: 'ada@x.io', data: { a: 1 } });
    await tidings.trigger({ name: 'ok', to: [{ subscriberId: 'ada', lastName: 'Lovelace', data: { b: 2 } }, 'newbie'] });
    expect(await tidings.subscribers.get('ada')).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@x.io', data: { b: 2 } });
    expect(await tidings.subscribers.get('newbie')).toMatchObject({ subscriberId: 'newbie', firstName: null });
  });

  it('topics: members deduplicated with direct recipients, the actor left out of topic members only', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok', '{{ actor.firstName }} says hi to {{ subscriber.subscriberId }}'));
    for (const id of ['a', 'b', 'c']) await tidings.subscribers.upsert({ subscriberId: id, firstName: id.toUpperCase() });
    await tidings.topics.addSubscribers('t1', ['a', 'b']);
    await tidings.topics.addSubscribers('t2', ['b', 'c']);
    const result = await tidings.trigger({ name: 'ok', to: [{ type: 'Topic', topicKey: 't1' }, { type: 'Topic', topicKey: 't2' }, 'b'], actor: 'c' });
    await tidings.runDue();
    const messages = await tidings.messages.byTransaction(result.transactionId!);
    expect(messages.map((m) => m.content).sort()).toEqual(['C says hi to a', 'C says hi to b']);
  });

  it('an invalid inline subscriber makes the event an error naming the field', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    const [result] = await tidings.triggerBulk([{ name: 'ok', to: [{ subscriberId: 'ada', timezone: 'Mars/Olympus' }] }]);
    expect(result!.status).toBe('error');
    expect(result!.error!.join()).toMatch(/timezone/);
    await expect(tidings.trigger({ name: 'ok', to: [{ subscriberId: 'ada', timezone: 'Mars/Olympus' }] })).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'to[0].timezone' }] });
    expect(await tidings.subscribers.get('ada')).toBeNull();
  });
});

describe('the type of a trigger result', () => {
  it('names its transactionId as a string once its status is processed (no cast needed); other statuses may leave it out', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(inAppWorkflow('ok'));
    const result = await tidings.trigger({ name: 'ok', to: 'ada' });
    if (result.status !== 'processed') throw new Error(`expected processed, got ${result.status}`);
    expectTypeOf(result.transactionId).toEqualTypeOf<string>();
    expect(result.transactionId).toMatch(/\S/);
    const [other] = await tidings.triggerBulk([{ name: 'missing', to: 'ada' }]);
    if (other!.status === 'processed') throw new Error('expected a refusal');
    expectTypeOf(other!.transactionId).toEqualTypeOf<string | undefined>();
  });
});
