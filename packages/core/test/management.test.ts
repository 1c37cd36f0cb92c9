import { describe, expect, it } from 'vitest';
import { TidingsError, isTidingsError } from '../src/index.js';
import { inAppWorkflow, testEngine } from './helpers.js';

async function issuesOf(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TidingsError) return error.issues.map((i) => i.path);
    throw error;
  }
  throw new Error('expected a TidingsError');
}

describe('workflows', () => {
  it('bad input is refused naming each field, and nothing is stored', async () => {
    const { tidings } = testEngine();
    const paths = await issuesOf(
      tidings.workflows.upsert({
        name: '',
        triggers: [],
        steps: [{ template: { type: 'carrier-pigeon' } }, { template: { type: 'in_app' }, filters: [{ value: 'AND', children: [{ field: 'x', value: '1', operator: 'ROUGHLY', on: 'payload' }] }] }],
      } as never),
    );
    expect(paths).toEqual(expect.arrayContaining(['name', 'triggers', 'steps[0].template.type', 'steps[1].filters[0].children[0].operator']));
    expect(await tidings.workflows.list()).toEqual([]);
  });

  it('a template that does not parse is refused when saved, naming the step field', async () => {
    const { tidings } = testEngine();
    const paths = await issuesOf(tidings.workflows.upsert(inAppWorkflow('broken', 'Hello {{ subscriber.firstName ')));
    expect(paths).toEqual(['steps[0].template.content']);
    const blocks = await issuesOf(
      tidings.workflows.upsert({
        name: 'mail',
        triggers: [{ identifier: 'mail' }],
        steps: [{ template: { type: 'email', subject: '{% if %}', content: [{ type: 'text', content: 'ok' }, { type: 'button', content: 'Go', url: '{{ x' }] } }],
      }),
    );
    expect(blocks).toEqual(['steps[0].template.subject', 'steps[0].template.content[1].url']);
  });

  it('digest and delay metadata must fit the step type', async () => {
    const { tidings } = testEngine();
    const paths = await issuesOf(
      tidings.workflows.upsert({
        name: 'x',
        triggers: [{ identifier: 'x' }],
        steps: [
          { template: { type: 'delay' }, metadata: { type: 'timed' } },
          { template: { type: 'digest' }, metadata: { type: 'scheduled', delayPath: 'a' } },
          { template: { type: 'in_app', content: 'x' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } },
          { template: { type: 'digest' }, metadata: { type: 'timed', timed: { atTime: '25:00' } } },
        ],
      }),
    );
    expect(paths).toEqual(expect.arrayContaining(['steps[0].metadata.type', 'steps[1].metadata.type', 'steps[2].metadata', 'steps[3].metadata.timed.atTime']));
  });

  it('upsert by identifier updates in place, keeps ids, and resolves by id, identifier and slug', async () => {
    const { tidings, clock } = testEngine();
    const first = await tidings.workflows.upsert(inAppWorkflow('news', 'v1'));
    clock.advance(1000);
    const second = await tidings.workflows.upsert(inAppWorkflow('news', 'v2', { name: 'News digest' }));
    expect(second._id).toBe(first._id);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.updatedAt).not.toBe(first.updatedAt);
    expect(second.slug).toBe(first.slug);
    expect(second.steps[0]!._id).toBeTruthy();
    for (const ref of [first._id, 'news', first.slug]) expect((await tidings.workflows.get(ref))?.steps[0]!.template.content).toBe('v2');
    await tidings.workflows.delete('news');
    expect(await tidings.workflows.get('news')).toBeNull();
    await expect(tidings.workflows.delete('news')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
  });
});

describe('subscribers, topics, tenants, integrations', () => {
  it('subscriber validation names the field; delete of a missing subscriber is not_found', async () => {
    const { tidings } = testEngine();
    expect(await issuesOf(tidings.subscribers.upsert({ subscriberId: '', timezone: 'Nowhere/City' }))).toEqual(['subscriberId', 'timezone']);
    await expect(tidings.subscribers.delete('ghost')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
  });

  it('topics.addSubscribers creates the topic and reports unknown subscribers', async () => {
    const { tidings } = testEngine();
    await tidings.subscribers.upsert({ subscriberId: 'a' });
    expect(await tidings.topics.addSubscribers('news', ['a', 'ghost', 'a'])).toEqual({ succeeded: ['a'], notFound: ['ghost'] });
    expect(await tidings.topics.get('news')).toMatchObject({ key: 'news', name: 'news' });
    expect(await tidings.topics.getSubscription('news', 'a')).toMatchObject({ topicKey: 'news', externalSubscriberId: 'a' });
    expect(await tidings.topics.removeSubscribers('news', ['a'])).toEqual({ removed: 1 });
    expect(await tidings.topics.getSubscription('news', 'a')).toBeNull();
  });

  it('integrations: identifier generated, setPrimary moves the primary flag within the channel', async () => {
    const { tidings } = testEngine();
    const a = await tidings.integrations.upsert({ name: 'A', providerId: 'sendgrid', channel: 'email', primary: true });
    const b = await tidings.integrations.upsert({ name: 'B', providerId: 'smtp', channel: 'email' });
    expect(a.identifier).toMatch(/^sendgrid-/);
    await tidings.integrations.setPrimary(b._id);
    const all = await tidings.integrations.listActive();
    expect(all.map((i) => [i.name, i.primary])).toEqual([['A', false], ['B', true]]);
    await expect(tidings.integrations.setPrimary('missing')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    expect(await issuesOf(tidings.integrations.upsert({ name: 'C', providerId: 'x', channel: 'fax' } as never))).toEqual(['channel']);
  });

  it('tenants: upsert keeps what is not given', async () => {
    const { tidings } = testEngine();
    await tidings.tenants.upsert({ identifier: 'acme', name: 'Acme', data: { plan: 'pro' } });
    await tidings.tenants.upsert({ identifier: 'acme', name: 'Acme Inc' });
    expect(await tidings.tenants.get('acme')).toMatchObject({ name: 'Acme Inc', data: { plan: 'pro' } });
  });
});

describe('engine options', () => {
  it('invalid options are refused naming the option', () => {
    expect(() => testEngine({ batchSize: 0 })).toThrow(/batchSize/);
  });
});
