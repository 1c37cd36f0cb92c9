/**
 * Subscribers and topics as `@novu/api` 3.19.1 calls them (`subscribers.create` / `retrieve` / `patch` /
 * `delete` / `search` / `createBulk` / `topics.list`, the `topics` namespace and `topics.subscriptions`)
 * and `@novu/node` 2.6.6 where it has the method (`subscribers.bulkCreate`, `topics.delete`), against a
 * real `tidings serve` (SQLite, over a port). The SDK checks every answer against its own zod models:
 * a shape it would not accept fails here as a ResponseValidationError. Novu's e2e tests
 * (apps/api/src/app/subscribers-v2/e2e, topics-v2/e2e, subscribers/e2e/bulk-create-subscribers.e2e.ts,
 * topics/e2e/delete-topic.e2e.ts) are the reference for the flows.
 */
import { Novu } from '@novu/api';
import { ErrorDto, SubscriberResponseDto, TopicResponseDto, ValidationErrorDto } from '@novu/api/models/errors';
import { beforeEach, describe, expect, it } from 'vitest';
import { rejection, sdkServer } from './sdk-server.js';

const KEY = 'tid_v2_people_key';

const sdk = sdkServer('v2-people', KEY);
const { http } = sdk;

/** The 422 the SDK throws, with the fields its `errors` names. */
async function refusedFields(promise: Promise<unknown>): Promise<string[]> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(ValidationErrorDto);
  expect((error as ValidationErrorDto).statusCode).toBe(422);
  return Object.keys((error as ValidationErrorDto).errors);
}

async function notFound(promise: Promise<unknown>) {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(ErrorDto);
  expect((error as ErrorDto).statusCode).toBe(404);
}

describe('subscribers (create-subscriber, get-subscriber, patch-subscriber, delete-subscriber e2e)', () => {
  it('subscribers.create creates, then upserts the same subscriberId; failIfExists refuses with a 409 the SDK throws as SubscriberResponseDto', async () => {
    const payload = { subscriberId: 'sub-1', firstName: 'First Name', lastName: 'Last Name', locale: 'en_US', timezone: 'America/New_York', data: { test1: 'test value1' } };
    const { result: created } = await sdk.novu.subscribers.create(payload);
    expect(created).toMatchObject({ ...payload, id: expect.any(String), organizationId: expect.any(String), environmentId: expect.any(String), deleted: false, createdAt: expect.any(String), updatedAt: expect.any(String) });

    const { result: updated } = await sdk.novu.subscribers.create({ subscriberId: 'sub-1', firstName: 'First Name 2', data: { foo: 42 } });
    expect(updated).toMatchObject({ id: created.id, firstName: 'First Name 2', lastName: 'Last Name', data: { foo: 42 } });

    const conflict = await rejection(sdk.novu.subscribers.create({ subscriberId: 'sub-1', firstName: 'Never' }, true));
    expect(conflict).toBeInstanceOf(SubscriberResponseDto);
    expect(conflict).toMatchObject({ statusCode: 409, subscriberId: 'sub-1', firstName: 'First Name 2' });
    expect((await sdk.server.tidings.subscribers.get('sub-1'))!.firstName).toBe('First Name 2');
    const { result: fresh } = await sdk.novu.subscribers.create({ subscriberId: 'sub-2' }, true);
    expect(fresh).toMatchObject({ subscriberId: 'sub-2', firstName: null, lastName: null });
  });

  it('a bad member is a 422 naming it (ValidationErrorDto); a member Novu does not have is refused by name', async () => {
    expect(await refusedFields(sdk.novu.subscribers.create({ subscriberId: 'sub-1', timezone: 'Mars/Olympus' }))).toEqual(['timezone']);
    expect(await refusedFields(sdk.novu.subscribers.create({ subscriberId: ' ' }))).toEqual(['subscriberId']);
    const plain = await http('POST', '/v2/subscribers', { subscriberId: 'sub-1', channels: [] });
    expect(plain).toMatchObject({ status: 422, body: { errors: { channels: { messages: ['is not a known member'] } } } });
    expect((await http('PATCH', '/v2/subscribers/sub-1', { email: 42 })).body).toMatchObject({ statusCode: 422, errors: { email: { messages: [expect.any(String)] } } });
  });

  it('subscribers.retrieve answers the subscriber; an unknown one is a 404 ErrorDto', async () => {
    await sdk.novu.subscribers.create({ subscriberId: 'sub-1', email: 'ada@example.com' });
    const { result } = await sdk.novu.subscribers.retrieve('sub-1');
    expect(result).toMatchObject({ subscriberId: 'sub-1', email: 'ada@example.com' });
    await notFound(sdk.novu.subscribers.retrieve('nobody'));
  });

  it('subscribers.patch changes only the members given (null clears one); an unknown subscriber is a 404, not a create', async () => {
    await sdk.novu.subscribers.create({ subscriberId: 'sub-1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', data: { a: 1 } });
    const { result } = await sdk.novu.subscribers.patch({ firstName: 'Augusta', email: null }, 'sub-1');
    expect(result).toMatchObject({ subscriberId: 'sub-1', firstName: 'Augusta', lastName: 'Lovelace', email: null, data: { a: 1 } });
    await notFound(sdk.novu.subscribers.patch({ firstName: 'X' }, 'nobody'));
    expect(await sdk.server.tidings.subscribers.get('nobody')).toBeNull();
  });

  it('subscribers.delete answers { acknowledged, status } and takes the topic subscriptions with it; a second delete is a 404', async () => {
    await sdk.novu.subscribers.create({ subscriberId: 'sub-1' });
    await sdk.novu.topics.subscriptions.create({ subscriberIds: ['sub-1'] }, 'news');
    const { result } = await sdk.novu.subscribers.delete('sub-1');
    expect(result).toEqual({ acknowledged: true, status: 'deleted' });
    await notFound(sdk.novu.subscribers.retrieve('sub-1'));
    expect(await sdk.server.tidings.topics.getSubscription('news', 'sub-1')).toBeNull();
    await notFound(sdk.novu.subscribers.delete('sub-1'));
  });
});

describe('subscribers.search', () => {
  const people = [
    { subscriberId: 'u-01', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@analytical.io', phone: '+44 100' },
    { subscriberId: 'u-02', firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.mil', phone: '+1 200' },
    { subscriberId: 'u-03', firstName: 'Alan', lastName: 'Turing', email: 'alan@bletchley.uk', phone: '+44 300' },
    { subscriberId: 'u-04', firstName: 'Edsger', lastName: 'Dijkstra', email: 'ewd@utexas.edu', phone: '+1 400' },
    { subscriberId: 'u-05', firstName: 'Barbara', lastName: 'Liskov', email: 'liskov@mit.edu', phone: '+1 500' },
  ];

  it('pages forward in subscriberId order through next, with the count, until next is null', async () => {
    await sdk.novu.subscribers.createBulk({ subscribers: [...people].reverse() });
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const { result } = await sdk.novu.subscribers.search({ limit: 2, ...(after !== undefined && { after }) });
      expect(result).toMatchObject({ previous: null, totalCount: 5, totalCountCapped: false });
      seen.push(...result.data.map((s) => s.subscriberId));
      if (result.next === null) break;
      after = result.next;
    }
    expect(seen).toEqual(['u-01', 'u-02', 'u-03', 'u-04', 'u-05']);
    // includeCursor: the page starts at the subscriber the cursor stands on.
    const { result: first } = await sdk.novu.subscribers.search({ limit: 2 });
    const { result: again } = await sdk.novu.subscribers.search({ limit: 2, after: first.next!, includeCursor: true });
    expect(again.data.map((s) => s.subscriberId)).toEqual(['u-02', 'u-03']);
  });

  it('filters: each one given narrows to values containing it, in any case; name is first and last name', async () => {
    await sdk.novu.subscribers.createBulk({ subscribers: people });
    const ids = async (query: Parameters<Novu['subscribers']['search']>[0]) => (await sdk.novu.subscribers.search(query)).result;
    expect((await ids({ email: '.EDU' })).data.map((s) => s.subscriberId)).toEqual(['u-04', 'u-05']);
    expect(await ids({ phone: '+44' })).toMatchObject({ totalCount: 2, data: [{ subscriberId: 'u-01' }, { subscriberId: 'u-03' }] });
    expect((await ids({ name: 'grace hop' })).data.map((s) => s.subscriberId)).toEqual(['u-02']);
    expect((await ids({ subscriberId: 'u-03' })).data.map((s) => s.subscriberId)).toEqual(['u-03']);
    expect((await ids({ phone: '+1', email: 'mit' })).data.map((s) => s.subscriberId)).toEqual(['u-05']);
    expect(await ids({ email: 'nobody' })).toEqual({ data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false });
  });

  it('a filter that matches few keeps each request within its scan budget: a short page with next, the match on a later one', async () => {
    const many = Array.from({ length: 2_600 }, (_, i) => ({ subscriberId: `m-${String(i).padStart(5, '0')}`, email: i === 2_550 ? 'needle@example.com' : `hay${i}@example.com` }));
    for (let i = 0; i < many.length; i += 500) await sdk.novu.subscribers.createBulk({ subscribers: many.slice(i, i + 500) });
    const { result: first } = await sdk.novu.subscribers.search({ email: 'needle' });
    expect(first.data).toEqual([]);
    expect(first.next).not.toBeNull();
    // The count reads as far as its budget: a lower bound, flagged as Novu flags a count it stopped.
    expect(first).toMatchObject({ totalCount: 0, totalCountCapped: true });
    const { result: second } = await sdk.novu.subscribers.search({ email: 'needle', after: first.next! });
    expect(second.data.map((s) => s.subscriberId)).toEqual(['m-02550']);
    expect(second.next).toBeNull();
    const { result: all } = await sdk.novu.subscribers.search({ limit: 1 });
    expect(all).toMatchObject({ totalCount: 2_600, totalCountCapped: false });
  });

  it('what a forward scan cannot serve is a 422 naming the field: DESC, before, another orderBy; so are a bad limit and a cursor it did not give', async () => {
    expect(await refusedFields(sdk.novu.subscribers.search({ orderDirection: 'DESC' }))).toEqual(['orderDirection']);
    expect(await refusedFields(sdk.novu.subscribers.search({ before: 'x' }))).toEqual(['before']);
    expect(await refusedFields(sdk.novu.subscribers.search({ orderBy: 'updatedAt' }))).toEqual(['orderBy']);
    expect(await refusedFields(sdk.novu.subscribers.search({ limit: 0 }))).toEqual(['limit']);
    expect(await refusedFields(sdk.novu.subscribers.search({ limit: 101 }))).toEqual(['limit']);
    expect(await refusedFields(sdk.novu.subscribers.search({ after: 'not-a-cursor' }))).toEqual(['after']);
    expect((await http('GET', '/v2/subscribers?emial=x')).body.errors).toEqual({ emial: { messages: ['is not a known member'] } });
    const { result } = await sdk.novu.subscribers.search({ orderDirection: 'ASC', orderBy: 'subscriberId' });
    expect(result.data).toEqual([]);
  });
});

describe('POST /v1/subscribers/bulk (bulk-create-subscribers.e2e.ts)', () => {
  it('createBulk answers { created, updated, failed } in the order given; the same subscriberId twice is created, then updated', async () => {
    await sdk.novu.subscribers.create({ subscriberId: 'existing', firstName: 'Old' });
    const { result } = await sdk.novu.subscribers.createBulk({
      subscribers: [
        { subscriberId: 'test1', firstName: 'sub1', email: 'sub1@test.co' },
        { subscriberId: 'test2', firstName: 'sub2', email: 'sub2@test.co' },
        { subscriberId: 'existing', firstName: 'update name' },
        { subscriberId: 'test2', firstName: 'update name' },
      ],
    });
    expect(result).toEqual({
      created: [{ subscriberId: 'test1' }, { subscriberId: 'test2' }],
      updated: [{ subscriberId: 'existing' }, { subscriberId: 'test2' }],
      failed: [],
    });
    expect(await sdk.server.tidings.subscribers.get('test2')).toMatchObject({ firstName: 'update name', email: 'sub2@test.co' });
    expect((await sdk.server.tidings.subscribers.get('existing'))!.firstName).toBe('update name');
  });

  it('more than 500 is a 422 naming subscribers, as is an invalid item (nothing stored); a subscriber the engine refuses is listed in failed', async () => {
    const tooMany = Array.from({ length: 501 }, (_, i) => ({ subscriberId: `s${i}` }));
    const error = await rejection(sdk.novu.subscribers.createBulk({ subscribers: tooMany }));
    expect(error).toBeInstanceOf(ValidationErrorDto);
    expect((error as ValidationErrorDto).errors['subscribers']!.messages).toEqual(['must contain no more than 500 elements']);
    expect(await refusedFields(sdk.novu.subscribers.createBulk({ subscribers: [{ subscriberId: 'ok' }, { subscriberId: 'bad', timezone: 'Nowhere/Never' }] }))).toEqual(['subscribers[1].timezone']);
    expect(await sdk.server.tidings.subscribers.get('ok')).toBeNull();

    // 100 device tokens per provider (over its integrations) at most: a second hundred would pass the cap, refused for that subscriber alone.
    const tokens = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}-${i}`);
    await http('POST', '/v1/subscribers', { subscriberId: 'phone', channels: [{ providerId: 'fcm', credentials: { deviceTokens: tokens('a') } }] });
    const { result } = await sdk.novu.subscribers.createBulk({ subscribers: [{ subscriberId: 'fine' }] });
    expect(result.created).toEqual([{ subscriberId: 'fine' }]);
    const plain = await http('POST', '/v1/subscribers/bulk', { subscribers: [{ subscriberId: 'phone', channels: [{ providerId: 'fcm', integrationIdentifier: 'second-app', credentials: { deviceTokens: tokens('b') } }] }, { subscriberId: 'other' }] });
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({ created: [{ subscriberId: 'other' }], updated: [], failed: [{ subscriberId: 'phone', message: expect.stringContaining('deviceTokens') }] });
  });

  it("@novu/node's bulkCreate reaches the same route", async () => {
    const response = await sdk.legacy.subscribers.bulkCreate([{ subscriberId: 'n1', email: 'n1@example.com' }, { subscriberId: 'n2' }]);
    expect(response.status).toBe(201);
    expect(response.data.data).toEqual({ created: [{ subscriberId: 'n1' }, { subscriberId: 'n2' }], updated: [], failed: [] });
  });
});

describe('topics (upsert-topic, get-topic, update-topic, delete-topic, list-topics e2e)', () => {
  it('topics.create creates (and renames on a second call); failIfExists is a 409 the SDK throws as TopicResponseDto; get, update, and 404s', async () => {
    const { result: created } = await sdk.novu.topics.create({ key: 'news', name: 'News' });
    expect(created).toMatchObject({ id: expect.any(String), key: 'news', name: 'News', createdAt: expect.any(String), updatedAt: expect.any(String) });
    const { result: renamed } = await sdk.novu.topics.create({ key: 'news', name: 'Daily news' });
    expect(renamed).toMatchObject({ id: created.id, name: 'Daily news' });
    const conflict = await rejection(sdk.novu.topics.create({ key: 'news', name: 'Never' }, true));
    expect(conflict).toBeInstanceOf(TopicResponseDto);
    expect(conflict).toMatchObject({ statusCode: 409, key: 'news', id: created.id });
    expect((conflict as TopicResponseDto).data$.name).toBe('Daily news');

    expect((await sdk.novu.topics.get('news')).result).toMatchObject({ id: created.id, key: 'news', name: 'Daily news' });
    const { result: updated } = await sdk.novu.topics.update({ name: 'Updated Name' }, 'news');
    expect(updated).toMatchObject({ id: created.id, key: 'news', name: 'Updated Name' });
    expect((await sdk.novu.topics.get('news')).result.name).toBe('Updated Name');
    await notFound(sdk.novu.topics.get('missing'));
    await notFound(sdk.novu.topics.update({ name: 'X' }, 'missing'));
    expect(await sdk.server.tidings.topics.get('missing')).toBeNull();
  });

  it('topic data is refused by name (Tidings topics hold a key and a name)', async () => {
    expect(await refusedFields(sdk.novu.topics.create({ key: 'news', name: 'News', data: { tier: 'gold' } }))).toEqual(['data']);
    expect(await refusedFields(sdk.novu.topics.update({ data: { tier: 'gold' } }, 'news'))).toEqual(['data']);
  });

  it('topics.list finds the topic with key (name narrows it); without a key it lists every topic in key order, a page at a time', async () => {
    await sdk.novu.topics.create({ key: 'news', name: 'Daily News' });
    const { result } = await sdk.novu.topics.list({ key: 'news' });
    expect(result).toMatchObject({ data: [{ key: 'news', name: 'Daily News' }], next: null, previous: null, totalCount: 1, totalCountCapped: false });
    expect((await sdk.novu.topics.list({ key: 'news', name: 'daily' })).result.data).toHaveLength(1);
    expect((await sdk.novu.topics.list({ key: 'news', name: 'weekly' })).result.data).toEqual([]);
    expect((await sdk.novu.topics.list({ key: 'other' })).result).toMatchObject({ data: [], totalCount: 0 });
    await sdk.novu.topics.create({ key: 'alerts', name: 'Alerts' });
    expect((await sdk.novu.topics.list({})).result).toMatchObject({ data: [{ key: 'alerts' }, { key: 'news' }], next: null, totalCount: 2 });
    const first = (await sdk.novu.topics.list({ limit: 1 })).result;
    expect(first.data.map((t) => t.key)).toEqual(['alerts']);
    expect((await sdk.novu.topics.list({ limit: 1, after: first.next! })).result.data.map((t) => t.key)).toEqual(['news']);
    expect((await sdk.novu.topics.list({ name: 'daily' })).result).toMatchObject({ data: [{ key: 'news' }], totalCount: 1 });
  });

  it('topics.delete removes the topic with every subscription (a trigger to it reaches nobody); an unknown topic is a 404', async () => {
    await sdk.novu.subscribers.createBulk({ subscribers: [{ subscriberId: 'a' }, { subscriberId: 'b' }] });
    await sdk.novu.topics.subscriptions.create({ subscriberIds: ['a', 'b'] }, 'news');
    const { result } = await sdk.novu.topics.delete('news');
    expect(result).toEqual({ acknowledged: true });
    await notFound(sdk.novu.topics.get('news'));
    expect((await sdk.novu.topics.list({})).result.data).toEqual([]);
    expect(await sdk.server.tidings.topics.memberPage('news', { limit: 10 })).toEqual([]);
    await sdk.server.tidings.workflows.upsert({ name: 'Hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'hi' } }] });
    await sdk.novu.trigger({ workflowId: 'hi', to: { type: 'Topic', topicKey: 'news' } });
    await sdk.server.tidings.runDue();
    expect((await sdk.server.tidings.messages.feed('a', { limit: 10 })).items).toEqual([]);
    await notFound(sdk.novu.topics.delete('missing'));
  });

  it("@novu/node's topics.delete (DELETE /v1/topics/:key): 204 for a topic without subscribers, 409 while it has some, 404 when unknown", async () => {
    await sdk.novu.subscribers.create({ subscriberId: 'a' });
    await sdk.legacy.topics.create({ key: 'busy', name: 'Busy' });
    await sdk.legacy.topics.addSubscribers('busy', { subscribers: ['a'] });
    const busy = await rejection(sdk.legacy.topics.delete('busy'));
    expect((busy as any).response.status).toBe(409);
    expect((busy as any).response.data.message).toBe(`Topic with key busy in the environment ${sdk.server.tidings.environmentId} can't be deleted as it still has subscribers assigned`);
    await sdk.legacy.topics.create({ key: 'empty', name: 'Empty' });
    expect((await sdk.legacy.topics.delete('empty')).status).toBe(204);
    await notFound(sdk.novu.topics.get('empty'));
    expect(((await rejection(sdk.legacy.topics.delete('missing'))) as any).response.status).toBe(404);
  });
});

describe('topics.subscriptions and subscribers.topics (create-topic-subscriptions, list-topic-subscriptions, delete-topic-subscriptions e2e)', () => {
  beforeEach(async () => {
    await sdk.novu.subscribers.createBulk({ subscribers: [{ subscriberId: 'a', firstName: 'Ada', email: 'ada@example.com' }, { subscriberId: 'b' }, { subscriberId: 'c' }] });
  });

  it('create subscribes known subscribers (topic created when missing), lists unknown ones in errors; when none is known it is a 400', async () => {
    const { result } = await sdk.novu.topics.subscriptions.create({ subscriberIds: ['a', 'ghost'], subscriptions: ['b', { identifier: 'tk_news:si_c', subscriberId: 'c' }] }, 'news');
    expect(result.meta).toEqual({ totalCount: 4, successful: 3, failed: 1 });
    expect(result.errors).toEqual([{ subscriberId: 'ghost', code: 'SUBSCRIBER_NOT_FOUND', message: "Subscriber with ID 'ghost' could not be found." }]);
    expect(result.data.map((s) => s.subscriber?.subscriberId).sort()).toEqual(['a', 'b', 'c']);
    expect(result.data.find((s) => s.subscriber?.subscriberId === 'a')).toMatchObject({ identifier: 'tk_news:si_a', topic: { key: 'news', name: 'news' }, subscriber: { firstName: 'Ada', email: 'ada@example.com' } });
    expect((await sdk.novu.topics.get('news')).result.key).toBe('news');

    const none = await rejection(sdk.novu.topics.subscriptions.create({ subscriberIds: ['ghost'] }, 'news'));
    expect(none).toBeInstanceOf(ErrorDto);
    expect((none as ErrorDto).statusCode).toBe(400);
  });

  it('what Tidings cannot keep on a subscription is refused by name: another identifier, a name, preferences, a context', async () => {
    expect(await refusedFields(sdk.novu.topics.subscriptions.create({ subscriptions: [{ identifier: 'mine', subscriberId: 'a' }] }, 'news'))).toEqual(['subscriptions[0].identifier']);
    expect(await refusedFields(sdk.novu.topics.subscriptions.create({ subscriberIds: ['a'], name: 'Mine' }, 'news'))).toEqual(['name']);
    expect(await refusedFields(sdk.novu.topics.subscriptions.create({ subscriberIds: ['a'], preferences: ['wf'] }, 'news'))).toEqual(['preferences']);
    expect(await refusedFields(sdk.novu.topics.subscriptions.create({ subscriberIds: ['a'], context: { tenant: 'acme' } }, 'news'))).toEqual(['context']);
    expect(await refusedFields(sdk.novu.topics.subscriptions.create({ subscriberIds: Array.from({ length: 101 }, (_, i) => `s${i}`) }, 'news'))).toEqual(['subscriberIds']);
    expect(await refusedFields(sdk.novu.topics.subscriptions.create({}, 'news'))).toEqual(['subscriptions']);
    expect(await sdk.server.tidings.topics.get('news')).toBeNull();
  });

  it('list pages forward in subscriberId order with the count; subscriberId picks one; getSubscription and update by identifier', async () => {
    await sdk.novu.topics.subscriptions.create({ subscriberIds: ['c', 'a', 'b'] }, 'news');
    const { result: first } = await sdk.novu.topics.subscriptions.list({ topicKey: 'news', limit: 2 });
    expect(first).toMatchObject({ totalCount: 3, totalCountCapped: false, previous: null });
    expect(first.data.map((s) => s.subscriber.subscriberId)).toEqual(['a', 'b']);
    expect(first.data[0]).toMatchObject({ identifier: 'tk_news:si_a', topic: { key: 'news', name: 'news', createdAt: expect.any(String) } });
    const { result: second } = await sdk.novu.topics.subscriptions.list({ topicKey: 'news', limit: 2, after: first.next! });
    expect(second.data.map((s) => s.subscriber.subscriberId)).toEqual(['c']);
    expect(second.next).toBeNull();
    expect((await sdk.novu.topics.subscriptions.list({ topicKey: 'news', subscriberId: 'b' })).result.data.map((s) => s.identifier)).toEqual(['tk_news:si_b']);
    expect((await sdk.novu.topics.subscriptions.list({ topicKey: 'news', subscriberId: 'ghost' })).result).toMatchObject({ data: [], totalCount: 0 });
    await notFound(sdk.novu.topics.subscriptions.list({ topicKey: 'missing' }));

    const { result: one } = await sdk.novu.topics.subscriptions.getSubscription('news', 'tk_news:si_a');
    expect(one).toEqual({ id: first.data[0]!.id, identifier: 'tk_news:si_a' });
    await notFound(sdk.novu.topics.subscriptions.getSubscription('news', 'tk_news:si_ghost'));
    await notFound(sdk.novu.topics.subscriptions.getSubscription('news', 'something-else'));

    const { result: same } = await sdk.novu.topics.subscriptions.update({ topicKey: 'news', identifier: 'tk_news:si_a', updateTopicSubscriptionRequestDto: {} });
    expect(same).toMatchObject({ identifier: 'tk_news:si_a', subscriber: { subscriberId: 'a' }, topic: { key: 'news' } });
    expect(await refusedFields(sdk.novu.topics.subscriptions.update({ topicKey: 'news', identifier: 'tk_news:si_a', updateTopicSubscriptionRequestDto: { name: 'Mine' } }))).toEqual(['name']);
  });

  it('delete unsubscribes by subscriberId or identifier; unknown subscribers and missing subscriptions are listed in errors', async () => {
    await sdk.novu.topics.subscriptions.create({ subscriberIds: ['a', 'b'] }, 'news');
    const { result } = await sdk.novu.topics.subscriptions.delete({ subscriberIds: ['a', 'ghost'], subscriptions: [{ identifier: 'tk_news:si_b' }, 'c'] }, 'news');
    expect(result.data.map((s) => s.subscriber?.subscriberId)).toEqual(['a', 'b']);
    expect(result.meta).toEqual({ totalCount: 4, successful: 2, failed: 2 });
    expect(result.errors).toEqual([
      { subscriberId: 'ghost', code: 'SUBSCRIBER_NOT_FOUND', message: "Subscriber with ID 'ghost' could not be found." },
      { subscriberId: 'c', code: 'SUBSCRIPTION_NOT_FOUND', message: "Subscription for subscriber 'c' not found." },
    ]);
    expect(await sdk.server.tidings.topics.getSubscription('news', 'a')).toBeNull();
    const none = await rejection(sdk.novu.topics.subscriptions.delete({ subscriberIds: ['a'] }, 'news'));
    expect((none as ErrorDto).statusCode).toBe(400);
  });

  it("subscribers.topics.list answers the subscriber's subscription to the topic key; without key it is a 422 naming key", async () => {
    await sdk.novu.topics.subscriptions.create({ subscriberIds: ['a'] }, 'news');
    const { result } = await sdk.novu.subscribers.topics.list({ subscriberId: 'a', key: 'news' });
    expect(result).toMatchObject({ data: [{ identifier: 'tk_news:si_a', topic: { key: 'news' }, subscriber: { subscriberId: 'a' } }], totalCount: 1 });
    expect((await sdk.novu.subscribers.topics.list({ subscriberId: 'b', key: 'news' })).result.data).toEqual([]);
    expect(await refusedFields(sdk.novu.subscribers.topics.list({ subscriberId: 'a' }))).toEqual(['key']);
    await notFound(sdk.novu.subscribers.topics.list({ subscriberId: 'ghost', key: 'news' }));
  });
});
