import { describe, expect, it } from 'vitest';
import { KEY_B, setup } from './helpers.js';

const json = async (response: Response) => ({ status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as any });

describe('the six operations', () => {
  it('bulk trigger → 201 { data: results }; over 100 events → 422 naming events; missing events → 422', async () => {
    const { request } = await setup();
    const ok = await json(await request('POST', '/v1/events/trigger/bulk', { events: [{ name: 'welcome', to: 'ada' }, { to: 'ada' }] }));
    expect(ok.status).toBe(201);
    expect(ok.type).toMatch(/application\/json/);
    expect(Object.keys(ok.body)).toEqual(['data']);
    expect(ok.body.data.map((r: any) => r.status)).toEqual(['processed', 'error']);
    const many = await json(await request('POST', '/v1/events/trigger/bulk', { events: Array.from({ length: 101 }, () => ({ name: 'welcome', to: 'ada' })) }));
    expect(many).toMatchObject({ status: 422, body: { statusCode: 422, message: ['events must contain no more than 100 elements'], errors: { events: { messages: ['events must contain no more than 100 elements'] } }, path: '/v1/events/trigger/bulk' } });
    const none = await json(await request('POST', '/v1/events/trigger/bulk', {}));
    expect(none).toMatchObject({ status: 422, body: { errors: { events: { messages: [expect.any(String)] } } } });
  });

  it('mark-as → 201 with the updated messages; action → 201 with the message; unknown ids → 404', async () => {
    const { request, a } = await setup();
    await a.trigger({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada' } });
    await a.runDue();
    const [message] = (await a.messages.feed('ada')).items;
    const marked = await json(await request('POST', '/v1/subscribers/ada/messages/mark-as', { messageId: [message!._id], markAs: 'seen' }));
    expect(marked).toMatchObject({ status: 201, body: { data: [{ _id: message!._id, seen: true, read: false, content: 'Hi Ada' }] } });
    const acted = await json(await request('POST', `/v1/subscribers/ada/messages/${message!._id}/actions/primary`, { status: 'done', payload: { ok: 1 } }));
    expect(acted).toMatchObject({ status: 201, body: { data: { cta: { action: { status: 'done', result: { type: 'primary', payload: { ok: 1 } } } } } } });
    expect((await request('POST', '/v1/subscribers/ada/messages/nope/actions/primary', { status: 'done' })).status).toBe(404);
    expect((await request('POST', `/v1/subscribers/ada/messages/${message!._id}/actions/tertiary`, { status: 'done' })).status).toBe(422);
    expect((await request('POST', '/v1/subscribers/ada/messages/mark-as', { messageId: 'nope', markAs: 'read' })).status).toBe(404);
  });

  it('preferences PATCH → 200; unknown subscriber → 404; bad schedule → 422 naming the field', async () => {
    const { request, a } = await setup();
    await a.subscribers.upsert({ subscriberId: 'ada' });
    const patched = await json(await request('PATCH', '/v2/subscribers/ada/preferences', { channels: { in_app: false }, workflowId: 'welcome' }));
    expect(patched).toMatchObject({ status: 200, body: { data: { workflows: [{ channels: { in_app: false }, overrides: [{ channel: 'in_app', source: 'subscriber' }] }] } } });
    expect((await request('PATCH', '/v2/subscribers/ghost/preferences', {})).status).toBe(404);
    const bad = await json(await request('PATCH', '/v2/subscribers/ada/preferences', { schedule: { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '13:00 AM', end: '5:00 PM' }] } } } }));
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['schedule.weeklySchedule.monday.hours[0].start']);
  });

  it('active integrations → 200, this environment only; topic check → 200 or 404', async () => {
    const { request, a, b } = await setup();
    await a.integrations.upsert({ name: 'A', providerId: 'slack', channel: 'chat' });
    await b.integrations.upsert({ name: 'B', providerId: 'slack', channel: 'chat' });
    const list = await json(await request('GET', '/v1/integrations/active'));
    expect(list.body.data.map((i: any) => i.name)).toEqual(['A']);
    await a.subscribers.upsert({ subscriberId: 'ada' });
    await a.topics.addSubscribers('news', ['ada']);
    expect((await json(await request('GET', '/v1/topics/news/subscribers/ada'))).body.data).toMatchObject({ topicKey: 'news', externalSubscriberId: 'ada', _topicId: expect.any(String) });
    expect((await request('GET', '/v1/topics/news/subscribers/bob')).status).toBe(404);
    expect((await request('GET', '/v1/topics/nope/subscribers/ada')).status).toBe(404);
    expect((await request('GET', '/v1/topics/news/subscribers/ada', undefined, {}, KEY_B)).status).toBe(404);
  });
});

describe('server routes', () => {
  it('workflows, subscribers, topics, tenants, integrations, trigger, cancel, feed and unseen', async () => {
    const { request, a } = await setup();
    const wf = await json(await request('POST', '/v1/workflows', { name: 'Delayed', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'x' } }] }));
    expect(wf.status).toBe(201);
    expect((await json(await request('GET', `/v1/workflows/${wf.body.data._id}`))).body.data.identifier).toBe('later');
    expect((await json(await request('GET', '/v1/workflows'))).body.data).toHaveLength(2);
    expect((await request('GET', '/v1/workflows/none')).status).toBe(404);
    expect((await request('POST', '/v1/subscribers', { subscriberId: 'ada', firstName: 'Ada' })).status).toBe(201);
    expect((await json(await request('PUT', '/v1/subscribers/ada', { lastName: 'Lovelace' }))).body.data).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    expect((await json(await request('GET', '/v1/subscribers/ada'))).body.data.subscriberId).toBe('ada');
    expect((await request('POST', '/v1/topics', { key: 'team', name: 'Team' })).status).toBe(201);
    expect((await json(await request('POST', '/v1/topics/team/subscribers', { subscribers: ['ada', 'ghost'] }))).body.data).toEqual({ succeeded: ['ada'], failed: { notFound: ['ghost'] } });
    expect((await request('POST', '/v1/tenants', { identifier: 'acme' })).status).toBe(201);
    expect((await request('POST', '/v1/integrations', { name: 'S', providerId: 'slack', channel: 'chat' })).status).toBe(201);
    expect((await json(await request('GET', '/v1/integrations'))).body.data).toHaveLength(1);
    const triggered = await json(await request('POST', '/v1/events/trigger', { name: 'later', to: [{ type: 'Topic', topicKey: 'team' }], tenant: 'acme' }));
    expect(triggered).toMatchObject({ status: 201, body: { data: { status: 'processed' } } });
    expect((await request('DELETE', `/v1/events/trigger/${triggered.body.data.transactionId}`)).status).toBe(200);
    await a.trigger({ name: 'welcome', to: 'ada' });
    await a.runDue();
    const feed = await json(await request('GET', '/v1/subscribers/ada/notifications/feed?limit=5'));
    expect(feed.body).toMatchObject({ data: [{ content: 'Hi Ada' }], hasMore: false, pageSize: 5 });
    expect((await json(await request('GET', '/v1/subscribers/ada/notifications/unseen'))).body.data).toEqual({ count: 1 });
    expect((await json(await request('POST', '/v1/topics/team/subscribers/removal', { subscribers: ['ada'] }))).body.data).toEqual({ removed: 1 });
    expect((await request('DELETE', '/v1/subscribers/ada')).status).toBe(200);
    expect((await request('GET', '/v1/subscribers/ada')).status).toBe(404);
  });

  it('/openapi.json lists every route with its request schema', async () => {
    const { app } = await setup();
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/events/trigger/bulk'].post.requestBody.content['application/json'].schema.properties.events.type).toBe('array');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v2/subscribers/{subscriberId}/preferences', '/v1/topics/{topicKey}/subscribers/{externalSubscriberId}']));
  });
});

describe('auth and errors', () => {
  it('401 for a missing header, a wrong scheme and an unknown key — each with its own message', async () => {
    const { app } = await setup();
    const messages = [];
    for (const headers of [{}, { authorization: 'Bearer key-env-a' }, { authorization: 'ApiKey nope' }] as Record<string, string>[]) {
      const res = await json(await app.request('/v1/integrations/active', { headers }));
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', path: '/v1/integrations/active', timestamp: expect.any(String) });
      messages.push(res.body.message);
    }
    expect(new Set(messages).size).toBe(3);
  });

  it('another environment’s records are 404', async () => {
    const { request, a } = await setup();
    await a.subscribers.upsert({ subscriberId: 'ada' });
    expect((await request('GET', '/v1/subscribers/ada', undefined, {}, KEY_B)).status).toBe(404);
    expect((await request('PATCH', '/v2/subscribers/ada/preferences', {}, {}, KEY_B)).status).toBe(404);
  });

  it('unknown routes, malformed JSON, wrong content type and oversized bodies get the envelope, never a 500', async () => {
    const { request } = await setup();
    const cases: [Response, number][] = [
      [await request('GET', '/v1/nowhere'), 404],
      [await request('POST', '/v1/events/trigger', '{"name":'), 400],
      [await request('POST', '/v1/events/trigger', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415],
      [await request('POST', '/v1/events/trigger', { name: 'welcome', to: 'x', payload: { big: 'x'.repeat(70_000) } }), 413],
    ];
    for (const [response, status] of cases) {
      const body = await json(response);
      expect(body.status).toBe(status);
      expect(body.type).toMatch(/application\/json/);
      expect(body.body).toMatchObject({ statusCode: status, message: expect.any(String), path: expect.any(String), timestamp: expect.any(String) });
      expect(JSON.stringify(body.body)).not.toMatch(/at .*\.ts/);
    }
  });
});
