import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTidings, isTidingsError } from '../src/index.js';
import { memoryStorage } from '@tidings/memory';
import { topicAudience } from '../src/trigger/read-recipients.js';
import { testEngine } from './helpers.js';

const digestThenInApp = {
  name: 'Digest',
  triggers: [{ identifier: 'digest' }],
  steps: [
    { template: { type: 'digest' as const }, metadata: { type: 'regular' as const, amount: 5, unit: 'minutes' as const } },
    { template: { type: 'in_app' as const, content: '{{ step.total_count }} events' } },
  ],
};

describe('inputs that never fail silently', () => {
  it('an engine option we do not know (a typo) is refused naming it, with the option it was probably meant to be', () => {
    const refused = (() => {
      try {
        createTidings({ storage: memoryStorage(), inlineInAp: false, colour: 'red' } as never);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(isTidingsError(refused, 'validation_failed')).toBe(true);
    expect((refused as { issues: { path: string; message: string }[] }).issues).toEqual([
      { path: 'inlineInAp', message: 'is not an option of createTidings (did you mean inlineInApp?)' },
      { path: 'colour', message: 'is not an option of createTidings' },
    ]);
    expect(() => createTidings({ storage: memoryStorage(), inlineInApp: false, onError: () => {} })).not.toThrow();
  });

  it('a workflow member we do not know is a validation_failed naming it, with a hint where one is obvious; nothing is saved', async () => {
    const { tidings } = testEngine();
    const misplaced = { ...digestThenInApp, steps: [{ template: { type: 'digest', metadata: { type: 'regular', amount: 5, unit: 'minutes' } } }, digestThenInApp.steps[1]!] };
    const error = await tidings.workflows.upsert(misplaced as never).catch((e: unknown) => e);
    expect(isTidingsError(error, 'validation_failed')).toBe(true);
    expect((error as { issues: unknown }).issues).toEqual([
      { path: 'steps[0].template.metadata', message: "is not a known member: digest and delay settings are the step's `metadata`: it belongs on the step, beside `template`" },
    ]);
    const typo = await tidings.workflows.upsert({ ...digestThenInApp, critcal: true } as never).catch((e: unknown) => e);
    expect((typo as { issues: unknown }).issues).toEqual([{ path: 'critcal', message: 'is not a known member' }]);
    const deep = await tidings.workflows.upsert({ ...digestThenInApp, steps: [{ ...digestThenInApp.steps[0]!, metadata: { type: 'regular', amount: 5, unit: 'minutes', digest_key: 'x' } }] } as never).catch((e: unknown) => e);
    expect((deep as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['steps[0].metadata.digest_key']);
    expect(await tidings.workflows.list()).toEqual([]);
  });

  it('a stored workflow or subscriber saves again as it is: the members the server makes are known', async () => {
    const { tidings } = testEngine();
    const stored = await tidings.workflows.upsert(digestThenInApp);
    const again = await tidings.workflows.upsert({ ...stored, name: 'Renamed' });
    expect(again).toMatchObject({ _id: stored._id, name: 'Renamed', createdAt: stored.createdAt });
    const ada = await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', channels: [{ providerId: 'slack', credentials: { webhookUrl: 'https://hooks.example/1' } }] });
    expect(await tidings.subscribers.upsert({ ...ada, lastName: 'Lovelace' })).toMatchObject({ _id: ada._id, firstName: 'Ada', lastName: 'Lovelace' });
    await expect(tidings.subscribers.upsert({ subscriberId: 'ada', firstname: 'Ada' } as never)).rejects.toSatisfy(
      (e) => isTidingsError(e, 'validation_failed') && e.issues[0]!.path === 'firstname' && e.issues[0]!.message === 'is not a known member',
    );
  });

  it('a trigger event member we do not know refuses the event, naming it (workflowId → name); nothing is recorded', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(digestThenInApp);
    await expect(tidings.trigger({ workflowId: 'digest', to: 'ada' } as never)).rejects.toMatchObject({
      code: 'validation_failed',
      issues: expect.arrayContaining([{ path: 'workflowId', message: "is not a known member: the workflow is `name` here (Novu's SDK calls it workflowId and sends it as name)" }]),
    });
    const [misplaced, inRecipient] = await tidings.triggerBulk([{ name: 'digest', to: 'ada', subscriberId: 'bob' } as never, { name: 'digest', to: [{ subscriberId: 'ada', fristName: 'Ada' }] } as never]);
    expect(misplaced!.error).toEqual(['subscriberId: is not a known member: recipients go in `to`: a subscriberId, `{ subscriberId, … }`, `{ type: "Topic", topicKey }` or a list of them']);
    expect(inRecipient!.error).toEqual(['to[0].fristName: is not a known member']);
    expect(await tidings.subscribers.get('ada')).toBeNull();
    expect((await tidings.trigger({ name: 'digest', to: [{ type: 'Subscriber', subscriberId: 'ada' }] })).status).toBe('processed');
  });

  it('a topic recipient may exclude members (Novu’s `exclude`): they get nothing through that topic, but still through another or by name', async () => {
    const { tidings } = testEngine({ inlineInApp: true });
    await tidings.workflows.upsert({ name: 'n', triggers: [{ identifier: 'n' }], steps: [{ template: { type: 'in_app', content: 'x' } }] });
    for (const id of ['a', 'b', 'c']) await tidings.subscribers.upsert({ subscriberId: id });
    await tidings.topics.addSubscribers('one', ['a', 'b', 'c']);
    await tidings.topics.addSubscribers('two', ['b']);
    const got = async () => Promise.all(['a', 'b', 'c'].map(async (id) => (await tidings.messages.counts(id)).total));
    await tidings.trigger({ name: 'n', to: [{ type: 'Topic', topicKey: 'one', exclude: ['a', 'b'] }] });
    expect(await got()).toEqual([0, 0, 1]);
    await tidings.trigger({ name: 'n', to: [{ type: 'Topic', topicKey: 'one', exclude: ['a', 'b'] }, { type: 'Topic', topicKey: 'two' }, 'a'] });
    expect(await got()).toEqual([1, 1, 2]);
  });

  it('topicAudience — for any memberships, exclusions and actor: the union over topics of (members less that topic’s exclusions), less the actor', async () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const topic = fc.record({ topicKey: fc.constantFrom('t1', 't2', 't3'), exclude: fc.uniqueArray(id, { maxLength: 3 }) });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('t1', 't2', 't3'), fc.uniqueArray(id)), fc.uniqueArray(topic, { selector: (t) => t.topicKey }), fc.option(id, { nil: null }), async (members, topics, actor) => {
        const reference = new Set<string>();
        for (const t of topics) for (const m of members[t.topicKey] ?? []) if (!t.exclude.includes(m) && m !== actor) reference.add(m);
        const memberIds = async (keys: string[]) => [...new Set(keys.flatMap((k) => members[k] ?? []))];
        expect([...(await topicAudience(topics, actor, memberIds))].sort()).toEqual([...reference].sort());
      }),
    );
  });

  it('the feed and counts of a subscriber who was never notified are empty in the library (the wire answers Novu’s 400)', async () => {
    const { tidings } = testEngine();
    expect(await tidings.messages.feed('ghost')).toEqual({ items: [], nextCursor: null });
    expect(await tidings.messages.counts('ghost')).toEqual({ total: 0, unread: 0, unseen: 0 });
    expect(await tidings.messages.count('ghost', [{ read: false }])).toEqual([{ count: 0, filter: { read: false } }]);
    expect(await tidings.subscribers.get('ghost')).toBeNull();
    await expect(tidings.preferences.get('ghost')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
  });
});
