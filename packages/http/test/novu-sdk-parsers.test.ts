/**
 * Every method of `@novu/api` 3.19.1 that Tidings serves, called once through the SDK against a real
 * `tidings serve` (SQLite, over a port), with the SDK's own response parser on: the `subscribers`
 * namespace and its `credentials`, `preferences`, `notifications`, `messages` and `topics`
 * sub-namespaces, `topics`, `notifications`, `workflows`, `integrations`, and `trigger`,
 * `triggerBulk`, `triggerBroadcast`, `cancel`. An answer whose shape the SDK does not accept throws
 * its `ResponseValidationError` (or `SDKValidationError`); the test lists every method that did, so a
 * failure names them all at once. `@novu/node` 2.6.6's reads that parse nothing are checked for
 * their members. What is not served is listed in docs/novu-compatibility.md with the reason.
 */
import { ResponseValidationError, SDKError, SDKValidationError, ValidationErrorDto } from '@novu/api/models/errors';
import { describe, expect, it } from 'vitest';
import { sdkServer } from './sdk-server.js';

const KEY = 'tid_sdk_parsers_key';

const sdk = sdkServer('sdk-parsers', KEY);

/** Each SDK method called, and how its answer fared in the SDK's parser. */
class Calls {
  readonly failed: string[] = [];
  readonly called: string[] = [];

  /** The SDK methods called, each once, in name order. */
  methods(): string[] {
    return [...new Set(this.called.map((name) => name.split(' ')[0]!))].sort();
  }

  /** Calls one SDK method; a parser refusal is recorded (with the parser's words), any other error fails at once. */
  async call<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
    this.called.push(name);
    try {
      return await run();
    } catch (error) {
      if (error instanceof ResponseValidationError || error instanceof SDKValidationError) {
        this.failed.push(`${name}: ${error.message} ${error.pretty()}`);
        return undefined;
      }
      // A success status the SDK does not take for this method (it answers "Unexpected Status").
      if (error instanceof SDKError && error.message.startsWith('Unexpected Status')) {
        this.failed.push(`${name}: ${error.message.split('\n')[0]}`);
        return undefined;
      }
      throw new Error(`${name} threw ${(error as Error).name}: ${(error as Error).message}`);
    }
  }
}

/** A workflow with an in-app step with both actions, so every message method has something to act on. */
async function seed() {
  await sdk.server.tidings.workflows.upsert({
    name: 'Comment',
    triggers: [{ identifier: 'comment' }],
    tags: ['social'],
    steps: [
      {
        template: {
          type: 'in_app',
          subject: 'New comment',
          content: 'Hi {{ subscriber.firstName }}: {{ payload.text }}',
          cta: { type: 'redirect', data: { url: '/comments' }, action: { buttons: [{ type: 'primary', content: 'Open' }, { type: 'secondary', content: 'Later' }] } },
        },
      },
    ],
  });
}

describe("@novu/api 3.19.1: every served method's answer passes the SDK's own parser", () => {
  it('subscribers, their credentials, preferences, notifications, messages and topics; topics; events', async () => {
    await seed();
    const calls = new Calls();

    // subscribers
    await calls.call('subscribers.create', () => sdk.novu.subscribers.create({ subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', data: { plan: 'pro' } }));
    await calls.call('subscribers.createBulk', () => sdk.novu.subscribers.createBulk({ subscribers: [{ subscriberId: 'bob', firstName: 'Bob' }, { subscriberId: 'cy' }] }));
    await calls.call('subscribers.retrieve', () => sdk.novu.subscribers.retrieve('ada'));
    await calls.call('subscribers.patch', () => sdk.novu.subscribers.patch({ lastName: 'King' }, 'ada'));
    await calls.call('subscribers.search', () => sdk.novu.subscribers.search({ limit: 2 }));

    // subscribers.credentials
    await calls.call('subscribers.credentials.update', () => sdk.novu.subscribers.credentials.update({ providerId: 'fcm', credentials: { deviceTokens: ['device-1'] } }, 'ada'));
    await calls.call('subscribers.credentials.append', () => sdk.novu.subscribers.credentials.append({ providerId: 'expo', credentials: { deviceTokens: ['ExponentPushToken[a]'] } }, 'ada'));
    await calls.call('subscribers.credentials.delete', () => sdk.novu.subscribers.credentials.delete('ada', 'expo'));

    // events
    const triggered = await calls.call('trigger', () => sdk.novu.trigger({ workflowId: 'comment', to: ['ada', 'bob'], payload: { text: 'first' } }));
    if (triggered) expect(triggered.result.status).toBe('processed');
    await calls.call('triggerBulk', () => sdk.novu.triggerBulk({ events: [{ workflowId: 'comment', to: 'ada', payload: { text: 'second' } }, { workflowId: 'comment', to: 'bob', payload: { text: 'second' } }] }));
    const broadcast = await calls.call('triggerBroadcast', () => sdk.novu.triggerBroadcast({ name: 'comment', payload: { text: 'everyone' } }));
    await calls.call('cancel', () => sdk.novu.cancel(broadcast!.result.transactionId!));

    // subscribers.preferences
    await calls.call('subscribers.preferences.list', () => sdk.novu.subscribers.preferences.list({ subscriberId: 'ada' }));
    await calls.call('subscribers.preferences.update', () => sdk.novu.subscribers.preferences.update({ workflowId: 'comment', channels: { inApp: true } }, 'ada'));
    await calls.call('subscribers.preferences.update (global)', () => sdk.novu.subscribers.preferences.update({ channels: { email: false } }, 'ada'));

    // subscribers.notifications (the v1 feed and unseen count)
    const feed = await calls.call('subscribers.notifications.feed', () => sdk.novu.subscribers.notifications.feed({ subscriberId: 'ada', limit: 10 }));
    if (feed) expect(feed.result.data.map((m) => m.content).sort()).toEqual(['Hi Ada: everyone', 'Hi Ada: first', 'Hi Ada: second']);
    // `page` counts from 0, `limit` messages a page, newest first.
    const pages = [];
    for (let page = 0; page < 4; page++) pages.push(await calls.call(`subscribers.notifications.feed (page ${page})`, () => sdk.novu.subscribers.notifications.feed({ subscriberId: 'ada', limit: 1, page, read: false })));
    if (feed && pages.every(Boolean)) {
      expect(pages.map((p) => [p!.result.page, p!.result.pageSize, p!.result.hasMore, p!.result.data.map((m) => m.id)])).toEqual([
        [0, 1, true, [feed.result.data[0]!.id]],
        [1, 1, true, [feed.result.data[1]!.id]],
        [2, 1, false, [feed.result.data[2]!.id]],
        [3, 1, false, []],
      ]);
    }
    // Novu's partial-payload filter is refused by name rather than ignored.
    await expect(sdk.novu.subscribers.notifications.feed({ subscriberId: 'ada', payload: Buffer.from(JSON.stringify({ text: 'first' })).toString('base64') })).rejects.toSatisfy(
      (e) => e instanceof ValidationErrorDto && Object.keys(e.errors).join() === 'payload',
    );
    const unseen = await calls.call('subscribers.notifications.unseenCount', () => sdk.novu.subscribers.notifications.unseenCount({ subscriberId: 'ada' }));
    if (unseen) expect(unseen.result.count).toBe(3);

    // subscribers.messages
    const messageId = (await sdk.server.tidings.messages.feed('ada')).items[0]!._id;
    await calls.call('subscribers.messages.markAllAs', () => sdk.novu.subscribers.messages.markAllAs({ messageId, markAs: 'seen' }, 'ada'));
    await calls.call('subscribers.messages.updateAsSeen', () => sdk.novu.subscribers.messages.updateAsSeen({ subscriberId: 'ada', messageId, type: 'primary', markMessageActionAsSeenDto: { status: 'done' } }));
    const acted = await calls.call('subscribers.notifications.feed (seen, an action done)', () => sdk.novu.subscribers.notifications.feed({ subscriberId: 'ada', seen: true }));
    if (acted) expect(acted.result.data).toMatchObject([{ id: messageId, seen: true, cta: { action: { status: 'done' } } }]);

    // topics, topics.subscriptions, topics.subscribers, subscribers.topics
    await calls.call('topics.create', () => sdk.novu.topics.create({ key: 'news', name: 'News' }));
    await calls.call('topics.get', () => sdk.novu.topics.get('news'));
    await calls.call('topics.update', () => sdk.novu.topics.update({ name: 'All the news' }, 'news'));
    await calls.call('topics.list', () => sdk.novu.topics.list({ key: 'news' }));
    await calls.call('topics.subscriptions.create', () => sdk.novu.topics.subscriptions.create({ subscriberIds: ['ada', 'bob'] }, 'news'));
    await calls.call('topics.subscriptions.list', () => sdk.novu.topics.subscriptions.list({ topicKey: 'news' }));
    await calls.call('topics.subscriptions.getSubscription', () => sdk.novu.topics.subscriptions.getSubscription('news', 'tk_news:si_ada'));
    await calls.call('topics.subscriptions.update', () => sdk.novu.topics.subscriptions.update({ topicKey: 'news', identifier: 'tk_news:si_ada', updateTopicSubscriptionRequestDto: {} }));
    await calls.call('topics.subscribers.retrieve', () => sdk.novu.topics.subscribers.retrieve('ada', 'news'));
    await calls.call('subscribers.topics.list', () => sdk.novu.subscribers.topics.list({ subscriberId: 'ada', key: 'news' }));
    await calls.call('topics.subscriptions.delete', () => sdk.novu.topics.subscriptions.delete({ subscriptions: [{ subscriberId: 'bob' }] }, 'news'));
    await calls.call('topics.delete', () => sdk.novu.topics.delete('news'));

    await calls.call('subscribers.delete', () => sdk.novu.subscribers.delete('cy'));

    expect(calls.failed).toEqual([]);
    expect(calls.methods()).toEqual([
      'cancel', 'subscribers.create', 'subscribers.createBulk', 'subscribers.credentials.append', 'subscribers.credentials.delete', 'subscribers.credentials.update',
      'subscribers.delete', 'subscribers.messages.markAllAs', 'subscribers.messages.updateAsSeen', 'subscribers.notifications.feed', 'subscribers.notifications.unseenCount',
      'subscribers.patch', 'subscribers.preferences.list', 'subscribers.preferences.update', 'subscribers.retrieve', 'subscribers.search', 'subscribers.topics.list',
      'topics.create', 'topics.delete', 'topics.get', 'topics.list', 'topics.subscribers.retrieve', 'topics.subscriptions.create', 'topics.subscriptions.delete',
      'topics.subscriptions.getSubscription', 'topics.subscriptions.list', 'topics.subscriptions.update', 'topics.update', 'trigger', 'triggerBroadcast', 'triggerBulk',
    ]);
  });

  it('notifications, workflows and integrations', async () => {
    await seed();
    const calls = new Calls();
    await sdk.server.tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
    await sdk.novu.trigger({ workflowId: 'comment', to: 'ada', payload: { text: 'hello' } });

    await calls.call('notifications.list', () => sdk.novu.notifications.list({ limit: 10 }));

    await calls.call('workflows.create', () =>
      sdk.novu.workflows.create({ name: 'Digest', workflowId: 'digest', active: true, tags: ['social'], steps: [{ name: 'In app', type: 'in_app', controlValues: { body: 'Hi {{ payload.text }}' } }, { name: 'Wait', type: 'delay', controlValues: { type: 'regular', amount: 5, unit: 'minutes' } }] }),
    );
    await calls.call('workflows.list', () => sdk.novu.workflows.list({}));
    await calls.call('workflows.get', () => sdk.novu.workflows.get('digest'));
    const got = (await sdk.novu.workflows.get('digest')).result;
    await calls.call('workflows.update', () => sdk.novu.workflows.update({ name: 'Digest 2', steps: got.steps.map((s) => ({ id: s.id, stepId: s.stepId, name: s.name, type: s.type, controlValues: s.controls.values })) as never, preferences: {} }, 'digest'));
    await calls.call('workflows.patch', () => sdk.novu.workflows.patch({ active: false }, 'digest'));
    await calls.call('workflows.steps.retrieve', () => sdk.novu.workflows.steps.retrieve('digest', got.steps[0]!.stepId));
    await calls.call('workflows.delete', () => sdk.novu.workflows.delete('digest'));

    const created = await calls.call('integrations.create', () => sdk.novu.integrations.create({ providerId: 'sendgrid', channel: 'email', name: 'SendGrid', identifier: 'sendgrid-main', active: true, check: false, credentials: { apiKey: 'SG.x', from: 'alerts@example.com', senderName: 'Alerts' } }));
    await calls.call('integrations.list', () => sdk.novu.integrations.list());
    await calls.call('integrations.listActive', () => sdk.novu.integrations.listActive());
    await calls.call('integrations.update', () => sdk.novu.integrations.update({ name: 'SendGrid 2' }, created!.result.id!));
    await calls.call('integrations.setAsPrimary', () => sdk.novu.integrations.setAsPrimary(created!.result.id!));

    expect(calls.failed).toEqual([]);
    expect(calls.methods()).toEqual([
      'integrations.create', 'integrations.list', 'integrations.listActive', 'integrations.setAsPrimary', 'integrations.update', 'notifications.list',
      'workflows.create', 'workflows.delete', 'workflows.get', 'workflows.list', 'workflows.patch', 'workflows.steps.retrieve', 'workflows.update',
    ]);
  });
});

describe('@novu/node 2.6.6: the feed and the unseen count carry what its callers read', () => {
  it('subscribers.getNotificationsFeed and getUnseenCount', async () => {
    await seed();
    await sdk.server.tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
    await sdk.novu.trigger({ workflowId: 'comment', to: 'ada', payload: { text: 'hello' } });
    await sdk.novu.trigger({ workflowId: 'comment', to: 'ada', payload: { text: 'again' } });
    const feed = await sdk.legacy.subscribers.getNotificationsFeed('ada', { page: 0, limit: 10, feedIdentifier: 'main' });
    expect(feed.status).toBe(200);
    expect(feed.data).toMatchObject({ page: 0, pageSize: 10, hasMore: false, data: [{ content: 'Hi Ada: again' }, { content: 'Hi Ada: hello', _subscriberId: expect.any(String), transactionId: expect.any(String) }] });
    const second = await sdk.legacy.subscribers.getNotificationsFeed('ada', { page: 1, limit: 1 });
    expect(second.data).toMatchObject({ page: 1, pageSize: 1, hasMore: false, data: [{ content: 'Hi Ada: hello' }] });
    const unseen = await sdk.legacy.subscribers.getUnseenCount('ada', false);
    expect(unseen.data.data).toEqual({ count: 2 });
  });
});
