/**
 * Novu's Inbox topic-subscription routes (`<Subscription />` of `@novu/react`): each route answered
 * as Novu's client reads it, bad input refused naming its field with nothing changed, another
 * subscriber's subscription out of reach, and Novu's own headless client (`@novu/js` 3.19.2) on them.
 */
import { createHmac } from 'node:crypto';
import { Novu } from '@novu/js';
import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { listen } from './helpers.js';

const KEY = 'key-subs';
const APP = 'app-subs';
const hash = (subscriberId: string) => createHmac('sha256', KEY).update(subscriberId).digest('hex');

async function setup() {
  const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z') });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [KEY], applicationIdentifier: APP }] });
  const digest = await tidings.workflows.upsert({
    name: 'Weekly digest',
    triggers: [{ identifier: 'digest' }],
    tags: ['news'],
    severity: 'high',
    steps: [{ template: { type: 'in_app', content: 'Digest {{ payload.n }}' } }, { template: { type: 'email', subject: 'Digest', content: 'Digest' } }],
  });
  const replies = await tidings.workflows.upsert({ name: 'Replies', triggers: [{ identifier: 'replies' }], tags: ['social'], steps: [{ template: { type: 'in_app', content: 'Reply' } }] });
  const tokens = new Map<string, string>();
  for (const subscriberId of ['ada', 'bob']) {
    const opened = await app.request('/v1/inbox/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: APP, subscriber: { subscriberId }, subscriberHash: hash(subscriberId) }) });
    tokens.set(subscriberId, ((await opened.json()) as { data: { token: string } }).data.token);
  }
  /** One Inbox call as `subscriberId`'s session; `null` sends no token. */
  const call = async (subscriberId: string | null, method: string, path: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      headers: { ...(subscriberId !== null && { authorization: `Bearer ${tokens.get(subscriberId)}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as { data?: unknown; errors?: Record<string, unknown>; message?: unknown }) };
  };
  return { tidings, app, call, tokens, digest, replies };
}

const workflowOf = (w: { _id: string; identifier: string; name: string; tags: string[] }, severity = 'none') => ({ id: w._id, identifier: w.identifier, name: w.name, critical: false, tags: w.tags, severity });

describe("Novu's Inbox topic-subscription routes", () => {
  it('POST, GET (list and one), PATCH, PATCH a preference, DELETE — each as Novu answers it; a subscription that is not there is 204', async () => {
    const { call, digest, replies } = await setup();
    const created = await call('ada', 'POST', '/v1/inbox/topics/releases/subscriptions', { identifier: '', topic: { name: 'Releases' }, preferences: ['digest', { workflowId: 'replies', enabled: false }] });
    expect(created.status).toBe(201);
    const identifier = 'tk_releases:si_ada';
    expect(created.body!.data).toEqual({
      id: expect.any(String),
      identifier,
      topicKey: 'releases',
      preferences: [
        { level: 'template', subscriptionId: identifier, enabled: true, channels: { in_app: true, email: true }, workflow: workflowOf(digest, 'high') },
        { level: 'template', subscriptionId: identifier, enabled: false, channels: { in_app: false }, workflow: workflowOf(replies) },
      ],
    });
    const list = await call('ada', 'GET', '/v1/inbox/topics/releases/subscriptions');
    expect(list).toEqual({ status: 200, body: { data: [created.body!.data] } });
    expect((await call('ada', 'GET', `/v1/inbox/topics/releases/subscriptions/${identifier}`)).body).toEqual({ data: created.body!.data });
    expect((await call('ada', 'GET', '/v1/inbox/topics/releases/subscriptions/another-one')).status).toBe(204);
    expect((await call('ada', 'GET', `/v1/inbox/topics/alerts/subscriptions/tk_alerts:si_ada`)).status).toBe(204);

    const renamed = await call('ada', 'PATCH', `/v1/inbox/topics/releases/subscriptions/${identifier}`, { name: 'Release notes', preferences: [{ filter: { tags: ['social'] }, enabled: true }] });
    expect(renamed.status).toBe(200);
    expect(renamed.body!.data).toMatchObject({ identifier, name: 'Release notes', preferences: [{ enabled: true, workflow: { identifier: 'replies' } }] });

    const emailOff = await call('ada', 'PATCH', `/v1/inbox/subscriptions/${identifier}/preferences/${digest._id}`, { email: false });
    expect(emailOff).toEqual({ status: 200, body: { data: { level: 'template', subscriptionId: identifier, enabled: true, channels: { in_app: true, email: false }, workflow: workflowOf(digest, 'high') } } });
    // As Novu's client sends a checkbox: `enabled` and every channel flag alike.
    const off = await call('ada', 'PATCH', `/v1/inbox/subscriptions/${identifier}/preferences/digest`, { enabled: false, email: false, sms: false, in_app: false, chat: false, push: false });
    expect(off.body!.data).toMatchObject({ enabled: false, channels: { in_app: false, email: false } });
    // A workflow named in the read's query is listed even with nothing stored for it.
    const read = await call('ada', 'GET', `/v1/inbox/topics/releases/subscriptions/${identifier}?workflowIds=digest&workflowIds=replies`);
    expect((read.body!.data as { preferences: { workflow: { identifier: string }; enabled: boolean }[] }).preferences.map((p) => [p.workflow.identifier, p.enabled])).toEqual([
      ['replies', true],
      ['digest', false],
    ]);

    const bulk = await call('ada', 'PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ subscriptionIdentifier: identifier, workflowId: 'digest', enabled: true, email: true, in_app: true }, { subscriptionIdentifier: identifier, workflowId: replies._id, enabled: false }] });
    expect(bulk.status).toBe(200);
    expect((bulk.body!.data as { subscriptionId: string; enabled: boolean; workflow: { identifier: string } }[]).map((p) => [p.subscriptionId, p.workflow.identifier, p.enabled])).toEqual([
      [identifier, 'digest', true],
      [identifier, 'replies', false],
    ]);

    expect(await call('ada', 'DELETE', `/v1/inbox/topics/releases/subscriptions/${identifier}`)).toEqual({ status: 200, body: { data: { success: true } } });
    expect((await call('ada', 'GET', `/v1/inbox/topics/releases/subscriptions/${identifier}`)).status).toBe(204);
    expect((await call('ada', 'GET', '/v1/inbox/topics/releases/subscriptions')).body).toEqual({ data: [] });
    expect((await call('ada', 'DELETE', `/v1/inbox/topics/releases/subscriptions/${identifier}`)).status).toBe(404);
  });

  it('bad input is refused (422 naming the field, 400 for a body that is not JSON) and changes nothing; a missing workflow or subscription is 404; no token is 401', async () => {
    const { tidings, app, call, tokens } = await setup();
    await call('ada', 'POST', '/v1/inbox/topics/releases/subscriptions', { identifier: 'ada-releases', preferences: ['digest'] });
    const before = await tidings.topics.subscriptions.get('ada', 'releases');
    const refusals: [string, string, unknown, string][] = [
      ['POST', '/v1/inbox/topics/alerts/subscriptions', { preferences: [{ workflowId: 'digest', enabled: 'yes' }] }, 'preferences[0].enabled'],
      ['POST', '/v1/inbox/topics/alerts/subscriptions', { preferences: [{ workflowId: 'digest', condition: { '==': [1, 1] } }] }, 'preferences[0].condition'],
      ['POST', '/v1/inbox/topics/alerts/subscriptions', { identifier: 'x', colour: 'red' }, 'colour'],
      ['POST', '/v1/inbox/topics/alerts/subscriptions', { identifier: 'x'.repeat(300) }, 'identifier'],
      ['PATCH', '/v1/inbox/topics/releases/subscriptions/ada-releases', { name: 7 }, 'name'],
      ['PATCH', '/v1/inbox/topics/releases/subscriptions/ada-releases', { preferences: [{ filter: { tags: 'news' } }] }, 'preferences[0].filter.tags'],
      ['PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/digest', { enabled: 'no' }, 'enabled'],
      ['PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/digest', { email: 1 }, 'email'],
      ['PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/digest', {}, 'enabled'],
      ['PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/digest', { condition: { '==': [1, 1] } }, 'condition'],
      ['PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ subscriptionIdentifier: 'ada-releases', workflowId: 'digest', enabled: false }, { workflowId: 'digest', enabled: false }] }, 'preferences[1].subscriptionIdentifier'],
    ];
    for (const [method, path, body, field] of refusals) {
      const answer = await call('ada', method, path, body);
      expect([answer.status, Object.keys(answer.body!.errors ?? {})], `${method} ${path} ${JSON.stringify(body)}`).toEqual([422, [field]]);
    }
    const notJson = await app.request('/v1/inbox/topics/alerts/subscriptions', { method: 'POST', headers: { authorization: `Bearer ${tokens.get('ada')}`, 'content-type': 'application/json' }, body: '{"identifier":' });
    expect(notJson.status).toBe(400);
    expect(await tidings.topics.subscriptions.get('ada', 'releases')).toEqual(before);
    expect(await tidings.topics.get('alerts')).toBeNull();
    expect((await call('ada', 'PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/no-such-workflow', { enabled: false })).status).toBe(404);
    expect((await call('ada', 'PATCH', '/v1/inbox/subscriptions/no-such-subscription/preferences/digest', { enabled: false })).status).toBe(404);
    expect((await call('ada', 'PATCH', '/v1/inbox/topics/releases/subscriptions/no-such-subscription', { name: 'x' })).status).toBe(404);
    expect((await call('ada', 'POST', '/v1/inbox/topics/releases/subscriptions', { identifier: 'another' })).status).toBe(409);
    for (const [method, path] of [['GET', '/v1/inbox/topics/releases/subscriptions'], ['POST', '/v1/inbox/topics/releases/subscriptions'], ['DELETE', '/v1/inbox/topics/releases/subscriptions/ada-releases'], ['PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/digest']] as const) {
      expect((await call(null, method, path, method === 'GET' || method === 'DELETE' ? undefined : {})).status).toBe(401);
    }
  });

  it("another subscriber's subscription is out of reach: not listed, not read (204), not changed, preferred or deleted (404)", async () => {
    const { tidings, call } = await setup();
    await call('ada', 'POST', '/v1/inbox/topics/releases/subscriptions', { identifier: 'ada-releases', preferences: ['digest'] });
    const before = await tidings.topics.subscriptions.get('ada', 'releases');
    expect((await call('bob', 'GET', '/v1/inbox/topics/releases/subscriptions')).body).toEqual({ data: [] });
    expect((await call('bob', 'GET', '/v1/inbox/topics/releases/subscriptions/ada-releases')).status).toBe(204);
    expect((await call('bob', 'PATCH', '/v1/inbox/topics/releases/subscriptions/ada-releases', { name: 'mine now' })).status).toBe(404);
    expect((await call('bob', 'PATCH', '/v1/inbox/subscriptions/ada-releases/preferences/digest', { enabled: false })).status).toBe(404);
    expect((await call('bob', 'PATCH', '/v1/inbox/subscriptions/tk_releases:si_ada/preferences/digest', { enabled: false })).status).toBe(404);
    expect((await call('bob', 'PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ subscriptionIdentifier: 'ada-releases', workflowId: 'digest', enabled: false }] })).status).toBe(404);
    expect((await call('bob', 'DELETE', '/v1/inbox/topics/releases/subscriptions/ada-releases')).status).toBe(404);
    expect(await tidings.topics.subscriptions.get('ada', 'releases')).toEqual(before);
    expect(await tidings.topics.memberPage('releases', { limit: 10 })).toEqual(['ada']);
  });

  it("Novu's headless client (@novu/js) subscribes, reads, turns a workflow off for the subscription, and unsubscribes; a trigger to the topic honours the preference", async () => {
    const { tidings, app } = await setup();
    const server = await listen(app);
    try {
      const novu = new Novu({ applicationIdentifier: APP, subscriber: { subscriberId: 'ada' }, subscriberHash: hash('ada'), apiUrl: server.url, socketUrl: server.url });
      const created = await novu.subscriptions.create({ topicKey: 'releases', preferences: ['digest'] });
      expect(created.error).toBeUndefined();
      expect(created.data).toMatchObject({ identifier: 'tk_releases:si_ada', topicKey: 'releases' });
      const got = await novu.subscriptions.get({ topicKey: 'releases', workflowIds: ['digest'] });
      expect(got.data!.preferences!.map((p) => [p.workflow.identifier, p.enabled, p.subscriptionId])).toEqual([['digest', true, 'tk_releases:si_ada']]);
      const changed = await got.data!.preferences![0]!.update({ value: false });
      expect(changed.error).toBeUndefined();
      expect(changed.data!.enabled).toBe(false);
      expect((await novu.subscriptions.list({ topicKey: 'releases' })).data!.map((s) => s.identifier)).toEqual(['tk_releases:si_ada']);

      await tidings.subscribers.upsert({ subscriberId: 'bob' });
      await tidings.topics.addSubscribers('releases', ['bob']);
      const { transactionId } = await tidings.trigger({ name: 'digest', to: { type: 'Topic', topicKey: 'releases' }, payload: { n: 1 } });
      await tidings.runDue();
      const made = await tidings.messages.byTransaction(transactionId!);
      expect(made.filter((m) => m.channel === 'in_app').map((m) => m.subscriberId)).toEqual(['bob']);
      expect(made.some((m) => m.subscriberId === 'ada')).toBe(false);
      expect((await tidings.explain(transactionId!, 'ada'))[0]!.entries[0]).toMatchObject({ decision: 'skipped', reason: 'the workflow is off in the subscription "tk_releases:si_ada" to topic "releases"' });

      expect((await got.data!.delete()).error).toBeUndefined();
      expect((await novu.subscriptions.get({ topicKey: 'releases' }, { refetch: true })).data).toBeNull();
    } finally {
      await server.close();
    }
  });
});
