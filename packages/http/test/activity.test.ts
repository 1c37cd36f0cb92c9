/**
 * "Knowing what happened" over HTTP: the decision records of a trigger (explain), Novu's activity list
 * (`GET /v1/notifications`) and what is still to happen (`GET /v1/jobs`), against a served engine.
 */
import { Novu } from '@novu/api';
import { memoryStorage } from '@tidings/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEngine } from './helpers.js';

const KEY = 'activity-key';
let served: Awaited<ReturnType<typeof serveEngine>>;

async function get(path: string, key: string | null = KEY) {
  const response = await fetch(`${served.url}${path}`, { headers: key === null ? {} : { authorization: `ApiKey ${key}` } });
  return { status: response.status, body: (await response.json()) as any };
}

async function trigger(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${served.url}/v1/events/trigger`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { transactionId: string } };
  // Apart by a few ms, so the notifications' createdAt order them.
  await new Promise((resolve) => setTimeout(resolve, 5));
  return data.transactionId;
}

const tx: Record<string, string> = {};

beforeAll(async () => {
  served = await serveEngine(memoryStorage(), KEY, 'app-activity');
  const { tidings } = served;
  await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
  await tidings.subscribers.upsert({ subscriberId: 'bob', firstName: 'Bob' });
  await tidings.workflows.upsert({
    name: 'Plans',
    triggers: [{ identifier: 'plans' }],
    steps: [
      { template: { type: 'in_app', content: 'Hello {{ subscriber.firstName }}' } },
      { template: { type: 'in_app', content: 'Pro only' }, filters: [{ value: 'AND', children: [{ on: 'payload', field: 'plan', operator: 'EQUAL', value: 'pro' }] }] },
    ],
  });
  // No email integration: the email step leaves a `warning` message (not sent).
  await tidings.workflows.upsert({ name: 'Mixed', triggers: [{ identifier: 'mixed' }], steps: [{ template: { type: 'in_app', content: 'In app' } }, { template: { type: 'email', subject: 'Mail', content: 'Mail body' } }] });
  await tidings.workflows.upsert({ name: 'Later', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'Later' } }] });
  await tidings.workflows.upsert({ name: 'Digest', triggers: [{ identifier: 'digest' }], steps: [{ template: { type: 'digest' }, metadata: { type: 'regular', amount: 10, unit: 'minutes' } }, { template: { type: 'in_app', content: '{{ step.total_count }} events' } }] });

  tx['free'] = await trigger({ name: 'plans', to: ['ada', 'bob'], payload: { plan: 'free' } });
  tx['pro'] = await trigger({ name: 'plans', to: 'ada', payload: { plan: 'pro' } });
  tx['mixed'] = await trigger({ name: 'mixed', to: 'bob' });
  tx['later'] = await trigger({ name: 'later', to: 'ada' });
  tx['digest'] = await trigger({ name: 'digest', to: 'ada' });
  // Walks that wait or send email run as jobs: the email is stored, the delay waits, the digest opens.
  await tidings.runDue();
});
afterAll(() => served?.close());

describe('GET /v1/notifications/:transactionId/explain', () => {
  it('shows the step a filter skipped, with the condition that failed', async () => {
    const { status, body } = await get(`/v1/notifications/${tx['free']}/explain?subscriberId=ada`);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ transactionId: tx['free'], subscriberId: 'ada' });
    expect(body.data[0].entries).toMatchObject([
      { stepIndex: 0, type: 'in_app', decision: 'delivered' },
      { stepIndex: 1, type: 'in_app', decision: 'skipped', failedFilter: { on: 'payload', field: 'plan', operator: 'EQUAL', expected: 'pro', actual: 'free', passed: false } },
    ]);
  });

  it('answers every subscriber of the trigger without subscriberId, and none for one it did not reach', async () => {
    expect((await get(`/v1/notifications/${tx['free']}/explain`)).body.data.map((r: any) => r.subscriberId).sort()).toEqual(['ada', 'bob']);
    expect(await get(`/v1/notifications/${tx['free']}/explain?subscriberId=zed`)).toEqual({ status: 200, body: { data: [] } });
  });

  it('is a 404 in Novu’s error shape for an unknown transaction', async () => {
    const { status, body } = await get('/v1/notifications/no-such-tx/explain');
    expect(status).toBe(404);
    expect(body).toMatchObject({ statusCode: 404, error: 'Not Found', message: 'Transaction "no-such-tx" was not found', path: '/v1/notifications/no-such-tx/explain' });
  });
});

describe('GET /v1/notifications', () => {
  it('lists a transaction per subscriber, with its messages', async () => {
    const { status, body } = await get(`/v1/notifications?transactionId=${tx['free']}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 0, pageSize: 10, hasMore: false });
    expect(body.data.map((a: any) => a.subscriber.subscriberId)).toEqual(['ada', 'bob']);
    const ada = body.data[0];
    expect(ada).toMatchObject({
      transactionId: tx['free'],
      templateIdentifier: 'plans',
      template: { name: 'Plans', triggers: [{ identifier: 'plans' }] },
      payload: { plan: 'free' },
      channels: ['in_app'],
      subscriber: { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' },
    });
    expect(ada._subscriberId).toBe(ada.subscriber._id);
    expect(ada.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(ada.messages).toMatchObject([{ channel: 'in_app', status: 'sent', content: 'Hello Ada', read: false, seen: false }]);
  });

  it('lists subscribers’ notifications newest first, pending ones included, and pages them', async () => {
    const { body } = await get('/v1/notifications?subscriberIds=ada&subscriberIds=bob');
    const seen = body.data.map((a: any) => `${a.transactionId}:${a.subscriber.subscriberId}`);
    expect(seen).toEqual([`${tx['digest']}:ada`, `${tx['later']}:ada`, `${tx['mixed']}:bob`, `${tx['pro']}:ada`, `${tx['free']}:ada`, `${tx['free']}:bob`]);
    // The delayed and digested ones have no message yet.
    expect(body.data[0].messages).toEqual([]);
    const first = await get('/v1/notifications?subscriberIds[]=ada&subscriberIds[]=bob&limit=4');
    const second = await get('/v1/notifications?subscriberId=ada&subscriberIds=bob&limit=4&page=1');
    expect(first.body).toMatchObject({ page: 0, pageSize: 4, hasMore: true });
    expect(second.body).toMatchObject({ page: 1, pageSize: 4, hasMore: false });
    expect([...first.body.data, ...second.body.data].map((a: any) => `${a.transactionId}:${a.subscriber.subscriberId}`)).toEqual(seen);
  });

  it('filters by workflow, channel, message status and time', async () => {
    const ids = async (query: string) => (await get(`/v1/notifications?subscriberIds=ada&subscriberIds=bob&${query}`)).body.data.map((a: any) => `${a.transactionId}:${a.subscriber.subscriberId}`);
    const workflow = await served.tidings.workflows.get('mixed');
    expect(await ids('templates=plans')).toEqual([`${tx['pro']}:ada`, `${tx['free']}:ada`, `${tx['free']}:bob`]);
    expect(await ids(`templates=${workflow!._id}`)).toEqual([`${tx['mixed']}:bob`]);
    expect(await ids('templates=nothing')).toEqual([]);
    expect(await ids('channels=email')).toEqual([`${tx['mixed']}:bob`]);
    expect(await ids('channels=email,in_app&templates=mixed')).toEqual([`${tx['mixed']}:bob`]);
    expect(await ids('status=warning')).toEqual([`${tx['mixed']}:bob`]);
    const mixed = (await get(`/v1/notifications?transactionId=${tx['mixed']}`)).body.data[0];
    expect(mixed.channels).toEqual(['in_app', 'email']);
    expect(mixed.messages).toMatchObject([{ channel: 'in_app', status: 'sent' }, { channel: 'email', status: 'warning', subject: 'Mail', content: 'Mail body' }]);
    const later = (await get(`/v1/notifications?transactionId=${tx['later']}`)).body.data[0];
    expect(await ids(`after=${encodeURIComponent(later.createdAt)}`)).toEqual([`${tx['digest']}:ada`, `${tx['later']}:ada`]);
    expect(await ids(`before=${encodeURIComponent(mixed.createdAt)}`)).toEqual([`${tx['mixed']}:bob`, `${tx['pro']}:ada`, `${tx['free']}:ada`, `${tx['free']}:bob`]);
    expect(await ids('before=2000-01-01')).toEqual([]);
  });

  it('combines transactionId with subscriberIds; unknown transactions and subscribers list nothing', async () => {
    expect((await get(`/v1/notifications?transactionId=${tx['free']}&subscriberIds=bob`)).body.data.map((a: any) => a.subscriber.subscriberId)).toEqual(['bob']);
    expect((await get(`/v1/notifications?transactionId=${tx['free']}&transactionId=${tx['pro']}`)).body.data).toHaveLength(3);
    expect((await get('/v1/notifications?transactionId=nope')).body).toEqual({ data: [], page: 0, pageSize: 10, hasMore: false });
    expect((await get('/v1/notifications?subscriberIds=nobody')).body.data).toEqual([]);
  });

  it('without transactions or subscribers lists the whole environment, newest first, filtered and paged', async () => {
    const pairs = (body: { data: any[] }) => body.data.map((a) => [a.transactionId, a.subscriber.subscriberId]);
    const first = await get('/v1/notifications?limit=3');
    expect(first.status).toBe(200);
    expect(pairs(first.body)).toEqual([[tx['digest'], 'ada'], [tx['later'], 'ada'], [tx['mixed'], 'bob']]);
    expect(first.body).toMatchObject({ page: 0, pageSize: 3, hasMore: true });
    expect(pairs((await get('/v1/notifications?limit=3&page=1')).body)).toEqual([[tx['pro'], 'ada'], [tx['free'], 'ada'], [tx['free'], 'bob']]);
    expect(pairs((await get('/v1/notifications?templates=plans')).body)).toEqual([[tx['pro'], 'ada'], [tx['free'], 'ada'], [tx['free'], 'bob']]);
    const warned = (await get('/v1/notifications?status=warning')).body.data;
    expect(pairs({ data: warned })).toEqual([[tx['mixed'], 'bob']]);
    // Each message says which step made it, for the page's step view.
    expect(warned[0].messages.map((m: any) => [m.stepIndex, m.channel, m.status])).toEqual([[0, 'in_app', 'sent'], [1, 'email', 'warning']]);
  });

  it('refuses bad input with a 422 naming the field', async () => {
    const refused = async (query: string) => {
      const { status, body } = await get(`/v1/notifications?${query}`);
      expect(status).toBe(422);
      return Object.keys(body.errors);
    };
    expect(await refused('subscriberIds=ada&limit=51')).toEqual(['limit']);
    expect(await refused('subscriberIds=ada&page=-1')).toEqual(['page']);
    expect(await refused('subscriberIds=ada&channels=fax')).toEqual(['channels[0]']);
    expect(await refused('subscriberIds=ada&status=lost')).toEqual(['status[0]']);
    expect(await refused('subscriberIds=ada&after=yesterday')).toEqual(['after']);
    expect(await refused('subscriberIds=ada&after=2026-02-01&before=2026-01-01')).toEqual(['after']);
    expect(await refused('subscriberIds=ada&emails=ada@example.com')).toEqual(['emails']);
    expect(await refused('subscriberIds=ada&limit=1&limit=2')).toEqual(['limit']);
  });

  it('answers Novu’s SDK (@novu/api notifications.list)', async () => {
    const novu = new Novu({ secretKey: KEY, serverURL: served.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 });
    const { result } = await novu.notifications.list({ subscriberIds: ['ada', 'bob'], channels: ['in_app', 'email'] as never, templates: ['plans', 'mixed'], limit: 2 });
    expect(result).toMatchObject({ page: 0, pageSize: 2, hasMore: true });
    expect(result.data.map((a) => [a.transactionId, a.subscriber?.subscriberId, a.template?.name])).toEqual([
      [tx['mixed'], 'bob', 'Mixed'],
      [tx['pro'], 'ada', 'Plans'],
    ]);
  });
});

describe('GET /v1/jobs', () => {
  it('shows a delayed step’s job and an open digest, filtered by subscriber or transaction', async () => {
    const { status, body } = await get('/v1/jobs?subscriberId=ada');
    expect(status).toBe(200);
    const delayed = body.data.jobs.find((j: any) => j.transactionId === tx['later']);
    expect(delayed).toMatchObject({ kind: 'walk', subscriberId: 'ada', stepIndex: 1, digestId: null, lastError: null });
    expect(Date.parse(delayed.runAt)).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect(body.data.digests).toMatchObject([{ subscriberId: 'ada', count: 1, transactionIds: [tx['digest']] }]);
    const digestId = body.data.digests[0].id;
    expect(body.data.jobs.some((j: any) => j.digestId === digestId)).toBe(true);

    const later = (await get(`/v1/jobs?transactionId=${tx['later']}`)).body.data;
    expect(later.jobs.map((j: any) => j.transactionId)).toEqual([tx['later']]);
    expect(later.digests).toEqual([]);
    const digest = (await get(`/v1/jobs?transactionId=${tx['digest']}`)).body.data;
    expect(digest.digests.map((d: any) => d.id)).toEqual([digestId]);
    expect(digest.jobs.map((j: any) => j.digestId)).toEqual([digestId]);
    expect((await get('/v1/jobs?subscriberId=bob')).body).toEqual({ data: { jobs: [], digests: [] } });
  });

  it('refuses a bad filter with a 422 naming it', async () => {
    for (const query of [`subscriberId=${'x'.repeat(300)}`, 'subscriberId=a&subscriberId=b']) {
      const { status, body } = await get(`/v1/jobs?${query}`);
      expect(status).toBe(422);
      expect(Object.keys(body.errors)).toEqual(['subscriberId']);
    }
  });
});

describe('authentication', () => {
  it.each(['/v1/notifications?subscriberIds=ada', `/v1/notifications/tx/explain`, '/v1/jobs'])('%s needs the API key (401 without it, or with a wrong one)', async (path) => {
    expect(await get(path, null)).toMatchObject({ status: 401, body: { statusCode: 401, message: 'Missing the Authorization header (Authorization: ApiKey <key>)' } });
    expect(await get(path, 'wrong-key')).toMatchObject({ status: 401, body: { statusCode: 401, message: 'API key not found' } });
  });
});
