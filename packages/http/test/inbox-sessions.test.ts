import { createHmac } from 'node:crypto';
import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';

const hash = (key: string, subscriberId: string) => createHmac('sha256', key).update(subscriberId).digest('hex');

describe('Inbox sessions are scoped to one environment and one subscriber', () => {
  it('a token of environment A never opens environment B, even renamed; the hash is keyed by each environment’s API key; an environment without an identifier serves no Inbox', async () => {
    const storage = memoryStorage();
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const a = createTidings({ storage, clock, environmentId: 'env-a' });
    const b = createTidings({ storage, clock, environmentId: 'env-b' });
    const c = createTidings({ storage, clock, environmentId: 'env-c' });
    await b.subscribers.upsert({ subscriberId: 'ada', firstName: 'Secret' });
    const app = createHttpApp({
      environments: [
        { tidings: a, apiKeys: ['key-a'], applicationIdentifier: 'app-a' },
        { tidings: b, apiKeys: ['key-b'], applicationIdentifier: 'app-b' },
        { tidings: c, apiKeys: ['key-c'] },
      ],
    });
    const open = (applicationIdentifier: string, subscriberHash: string) =>
      app.request('/v1/inbox/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier, subscriber: { subscriberId: 'ada' }, subscriberHash }) });
    expect((await open('app-a', hash('key-b', 'ada'))).status).toBe(400);
    expect((await open('app-c', hash('key-c', 'ada'))).status).toBe(400);
    const session = await open('app-a', hash('key-a', 'ada'));
    expect(session.status).toBe(201);
    const { token } = ((await session.json()) as { data: { token: string } }).data;
    const [payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const renamed = `${Buffer.from(JSON.stringify({ ...claims, a: 'app-b' })).toString('base64url')}.${signature}`;
    expect((await app.request('/v1/inbox/notifications', { headers: { authorization: `Bearer ${renamed}` } })).status).toBe(401);
    const other = `${Buffer.from(JSON.stringify({ ...claims, s: 'bob' })).toString('base64url')}.${signature}`;
    expect((await app.request('/v1/inbox/notifications', { headers: { authorization: `Bearer ${other}` } })).status).toBe(401);
    const own = await app.request('/v1/inbox/notifications', { headers: { authorization: `Bearer ${token}` } });
    expect(own.status).toBe(200);
    // The session created ada in environment A; environment B's ada is untouched.
    expect((await b.subscribers.get('ada'))!.firstName).toBe('Secret');
    expect(await a.subscribers.get('ada')).not.toBeNull();
    // API-key routes do not take a session token, and Inbox routes do not take an API key.
    expect((await app.request('/v1/integrations/active', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await app.request('/v1/inbox/notifications', { headers: { authorization: 'ApiKey key-a' } })).status).toBe(401);
  });

  it('a rotated key: hashes and session tokens made with the previous key work until its grace ends, then only the new key’s do; a bad grace is refused at start', async () => {
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const tidings = createTidings({ storage: memoryStorage(), clock });
    const before = createHttpApp({ environments: [{ tidings, apiKeys: ['old-key'], applicationIdentifier: 'app' }], clock });
    const open = (app: ReturnType<typeof createHttpApp>, subscriberHash: string) =>
      app.request('/v1/inbox/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: 'app', subscriber: { subscriberId: 'ada' }, subscriberHash }) });
    const feed = (app: ReturnType<typeof createHttpApp>, token: string) => app.request('/v1/inbox/notifications', { headers: { authorization: `Bearer ${token}` } });
    const tokenOf = async (response: Response) => ((await response.json()) as { data: { token: string } }).data.token;
    const oldToken = await tokenOf(await open(before, hash('old-key', 'ada')));

    // The deploy that rotates: the new key first, the old one accepted for the Inbox for an hour.
    const after = createHttpApp({ environments: [{ tidings, apiKeys: ['new-key'], applicationIdentifier: 'app', previousInboxKey: { key: 'old-key', until: '2026-06-01T13:00:00Z' } }], clock });
    expect((await feed(after, oldToken)).status).toBe(200);
    expect((await open(after, hash('old-key', 'ada'))).status).toBe(201);
    const newToken = await tokenOf(await open(after, hash('new-key', 'ada')));
    expect((await feed(after, newToken)).status).toBe(200);
    expect((await open(after, hash('other-key', 'ada'))).status).toBe(400);

    clock.advance(3_600_000);
    expect((await feed(after, oldToken)).status).toBe(401);
    expect((await open(after, hash('old-key', 'ada'))).status).toBe(400);
    expect((await feed(after, newToken)).status).toBe(200);
    expect(() => createHttpApp({ environments: [{ tidings, apiKeys: ['k'], applicationIdentifier: 'app', previousInboxKey: { key: 'old', until: 'tomorrow' } }] })).toThrow(/previousInboxKey\.until/);
  });
});
