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
});
