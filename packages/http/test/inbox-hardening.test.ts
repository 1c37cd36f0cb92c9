/**
 * Novu's Inbox API against hostile browsers: a session does not rewrite an existing subscriber's
 * profile, filter lists and the bulk preference list have caps (422 naming the field, nothing
 * changed), a session token has exactly one spelling, and an unauthenticated call is refused before
 * its body is read. Over SQLite, where unbounded tag lists used to overflow the SQL expression tree.
 */
import { createHmac } from 'node:crypto';
import { createTidings, type Tidings } from '@tidings/core';
import { MAX_FILTER_DATA_KEYS, MAX_FILTER_TAG_GROUPS, MAX_FILTER_TAGS_PER_GROUP, MAX_PREFERENCE_UPDATES } from '@tidings/core/schemas';
import { manualClock } from '@tidings/core/testing';
import { sqliteStorage } from '@tidings/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, type InboxOptions } from '../src/index.js';

const KEY = 'hardening-key';
const APP = 'app-hardening';
const hash = (subscriberId: string) => createHmac('sha256', KEY).update(subscriberId).digest('hex');
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(inbox: InboxOptions = {}) {
  const storage = sqliteStorage({ filename: ':memory:' });
  closers.push(() => storage.close());
  const tidings = createTidings({ storage, clock: manualClock('2026-06-01T12:00:00.000Z') });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [KEY], applicationIdentifier: APP }], inbox, bodyLimit: 64 * 1024 });
  const open = async (subscriber: Record<string, unknown>, subscriberHash: string | null = hash(String(subscriber['subscriberId']))) => {
    const response = await app.request('/v1/inbox/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: APP, subscriber, subscriberHash }) });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { token: string } }).data.token;
  };
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (response.status === 204 ? null : await response.json()) as { errors?: Record<string, unknown>; data?: unknown } | null };
  };
  return { tidings, app, open, call };
}

const profile = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+15550001', avatar: 'https://img/ada.png', data: { role: 'member' }, timezone: 'Europe/London', locale: 'en-GB' };
const hijack = { firstName: 'Eve', lastName: 'X', email: 'eve@evil.example', phone: '+15559999', avatar: 'https://evil/eve.png', data: { role: 'admin' }, timezone: 'Europe/Paris', locale: 'fr-FR' };
const profileOf = async (tidings: Tidings, subscriberId: string) => {
  const { firstName, lastName, email, phone, avatar, data, timezone, locale } = (await tidings.subscribers.get(subscriberId))!;
  return { firstName, lastName, email, phone, avatar, data, timezone, locale };
};

describe('Inbox sessions and the subscriber profile', () => {
  it('a session creates a subscriber with the profile it gives, but of an existing one sets only timezone and locale', async () => {
    const { tidings, open } = await setup();
    await open({ subscriberId: 'new', ...profile });
    expect(await profileOf(tidings, 'new')).toEqual(profile);

    await tidings.subscribers.upsert({ subscriberId: 'ada', ...profile });
    await open({ subscriberId: 'ada', ...hijack });
    expect(await profileOf(tidings, 'ada')).toEqual({ ...profile, timezone: 'Europe/Paris', locale: 'fr-FR' });
  });

  it('sessionUpdatesProfile: true lets a session with a valid hash change the profile; a session without a checked hash still cannot', async () => {
    const { tidings, open } = await setup({ sessionUpdatesProfile: true, requireSubscriberHash: false });
    await tidings.subscribers.upsert({ subscriberId: 'ada', ...profile });
    await tidings.subscribers.upsert({ subscriberId: 'bob', ...profile });
    await open({ subscriberId: 'ada', ...hijack });
    expect(await profileOf(tidings, 'ada')).toEqual(hijack);
    await open({ subscriberId: 'bob', ...hijack }, null);
    expect(await profileOf(tidings, 'bob')).toEqual({ ...profile, timezone: 'Europe/Paris', locale: 'fr-FR' });
  });
});

describe('Inbox filter caps: 422 naming the member, before any query', () => {
  const query = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();
  const tags = (n: number, key = 'tags[]') => Array.from({ length: n }, (_, i): [string, string] => [key, `t${i}`]);

  it('GET /v1/inbox/notifications: 1,100 tags[], one past the tag, group and data caps', async () => {
    const { tidings, open, call } = await setup();
    const token = await open({ subscriberId: 'ada' });
    expect((await call(token, 'GET', `/v1/inbox/notifications?${query(tags(MAX_FILTER_TAGS_PER_GROUP))}`)).status).toBe(200);
    for (const pairs of [tags(1_100), tags(MAX_FILTER_TAGS_PER_GROUP + 1), Array.from({ length: MAX_FILTER_TAG_GROUPS + 1 }, (_, i): [string, string] => [`tags[${i}][]`, `t${i}`])]) {
      const refused = await call(token, 'GET', `/v1/inbox/notifications?${query(pairs)}`);
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body!.errors!)).toEqual(['tags']);
    }
    const data = JSON.stringify(Object.fromEntries(Array.from({ length: MAX_FILTER_DATA_KEYS + 1 }, (_, i) => [`k${i}`, i])));
    const manyData = await call(token, 'GET', `/v1/inbox/notifications?${query([['data', data]])}`);
    expect(manyData.status).toBe(422);
    expect(Object.keys(manyData.body!.errors!)).toEqual(['data']);
    const severities = await call(token, 'GET', `/v1/inbox/notifications?${query([['severity[]', 'high'], ['severity[]', 'low'], ['severity[]', 'none'], ['severity[]', 'medium'], ['severity[]', 'high']])}`);
    expect(severities.status).toBe(422);
    expect(Object.keys(severities.body!.errors!)).toEqual(['severity']);
    expect(tidings).toBeDefined();
  });

  it('the count route names the filter (`filters[1].tags`); a bulk route refuses and changes nothing', async () => {
    const { tidings, open, call } = await setup();
    await tidings.workflows.upsert({ name: 'Ping', triggers: [{ identifier: 'ping' }], tags: ['t0'], steps: [{ template: { type: 'in_app', content: 'Ping' } }] });
    await tidings.trigger({ name: 'ping', to: 'ada' });
    const token = await open({ subscriberId: 'ada' });
    const tooMany = Array.from({ length: MAX_FILTER_TAGS_PER_GROUP + 1 }, (_, i) => `t${i}`);
    const count = await call(token, 'GET', `/v1/inbox/notifications/count?filters=${encodeURIComponent(JSON.stringify([{ read: false }, { tags: tooMany }]))}`);
    expect(count.status).toBe(422);
    expect(Object.keys(count.body!.errors!)).toEqual(['filters[1].tags']);
    const read = await call(token, 'POST', '/v1/inbox/notifications/read', { tags: tooMany });
    expect(read.status).toBe(422);
    expect(Object.keys(read.body!.errors!)).toEqual(['tags']);
    expect((await tidings.messages.counts('ada')).unread).toBe(1);
    expect((await call(token, 'POST', '/v1/inbox/notifications/read', { tags: tooMany.slice(0, -1) })).status).toBe(204);
    expect((await tidings.messages.counts('ada')).unread).toBe(0);
  });
});

describe('PATCH /v1/inbox/preferences/bulk', () => {
  async function withWorkflows() {
    const context = await setup();
    for (const name of ['billing', 'social']) {
      await context.tidings.workflows.upsert({ name, triggers: [{ identifier: name }], steps: [{ template: { type: 'in_app', content: 'x' } }, { template: { type: 'email', subject: 's', content: 'x' } }] });
    }
    return { ...context, token: await context.open({ subscriberId: 'ada' }) };
  }
  const emailOf = async (tidings: Tidings, identifier: string) => (await tidings.preferences.get('ada')).workflows.find((w) => w.workflow.identifier === identifier)!.channels.email;

  it(`takes at most ${MAX_PREFERENCE_UPDATES} items: one more is a 422 naming preferences, and nothing is written`, async () => {
    const { tidings, token, call } = await withWorkflows();
    const items = (n: number) => Array.from({ length: n }, () => ({ workflowId: 'billing', email: false }));
    const refused = await call(token, 'PATCH', '/v1/inbox/preferences/bulk', { preferences: items(MAX_PREFERENCE_UPDATES + 1) });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body!.errors!)).toEqual(['preferences']);
    expect(await emailOf(tidings, 'billing')).toBe(true);
    const accepted = await call(token, 'PATCH', '/v1/inbox/preferences/bulk', { preferences: items(MAX_PREFERENCE_UPDATES) });
    expect(accepted.status).toBe(200);
    expect(accepted.body!.data).toHaveLength(MAX_PREFERENCE_UPDATES);
    expect(await emailOf(tidings, 'billing')).toBe(false);
  });

  it('applies the whole list or none of it (a missing workflow last), and names a bad flag by its item', async () => {
    const { tidings, token, call } = await withWorkflows();
    const partial = await call(token, 'PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ workflowId: 'billing', email: false }, { workflowId: 'missing', email: false }] });
    expect(partial.status).toBe(404);
    expect(await emailOf(tidings, 'billing')).toBe(true);
    const badFlag = await call(token, 'PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ workflowId: 'billing', email: false }, { workflowId: 'social', email: 'no' }] });
    expect(badFlag.status).toBe(422);
    expect(Object.keys(badFlag.body!.errors!)).toEqual(['preferences[1].email']);
    const both = await call(token, 'PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ workflowId: 'billing', email: false }, { workflowId: 'social', in_app: false }] });
    expect(both.status).toBe(200);
    expect((both.body!.data as { workflow: { identifier: string }; channels: unknown }[]).map((p) => [p.workflow.identifier, p.channels])).toEqual([
      ['billing', { in_app: true, email: false }],
      ['social', { in_app: false, email: true }],
    ]);
  });
});

describe('Inbox session tokens and unauthenticated bodies', () => {
  it('a token has one spelling: a third segment, padding or other characters, or other spare bits of the last character are refused', async () => {
    const { app, open } = await setup();
    const token = await open({ subscriberId: 'ada' });
    const status = async (bearer: string) => (await app.request('/v1/inbox/notifications', { headers: { authorization: `Bearer ${bearer}` } })).status;
    expect(await status(token)).toBe(200);
    const [payload, signature] = token.split('.') as [string, string];
    // 32 bytes in 43 characters: the last one carries 2 spare bits, so flipping its lowest bit decodes the same.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    const spare = `${signature.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(spare, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
    for (const variant of [`${token}.x`, `${token}.`, `${payload}.${signature}=`, `${payload}.${signature.slice(0, 10)}!${signature.slice(10)}`, `${payload}.${spare}`, `${payload}..${signature}`]) {
      expect(await status(variant)).toBe(401);
    }
    // A payload that is JSON but not an object: refused, not a 500.
    expect(await status(`${Buffer.from('null').toString('base64url')}.${signature}`)).toBe(401);
  });

  it('without a token, an Inbox call is refused before its body is read', async () => {
    const { app } = await setup();
    let pulled = false;
    // Nothing is pulled until someone reads (no queue to fill ahead).
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled = true;
          controller.enqueue(new Uint8Array(128 * 1024));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const response = await app.request(new Request('http://localhost/v1/inbox/notifications/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(401);
    expect(pulled).toBe(false);
    // A declared body past the limit from a caller without a token: still a 401, not a 413.
    const declared = await app.request('/v1/inbox/notifications/read', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(1 << 20) }, body: 'x'.repeat(1 << 20) });
    expect(declared.status).toBe(401);
  });
});
