import { createHmac } from 'node:crypto';
import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { openSse } from '../../../test-support/sse-client.js';
import { createHttpApp } from '../src/index.js';
import { KEY_A, listen, setup } from './helpers.js';

const MINUTE = 60_000;

/** Resolves once `condition` holds, checking after every turn of the event loop (no fixed delays). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('expiry over HTTP', () => {
  it('a trigger’s expiresAt: the message leaves the Inbox feed and counts and the v1 feed once the clock passes it, the sweep deletes it and explain says expired; a past expiresAt is a 422 naming it', async () => {
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const tidings = createTidings({ storage: memoryStorage(), clock });
    await tidings.workflows.upsert({ name: 'Welcome', triggers: [{ identifier: 'welcome' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['key'], applicationIdentifier: 'app' }] });
    const call = async (method: string, path: string, body?: unknown, authorization = 'ApiKey key') => {
      const response = await app.request(path, { method, headers: { authorization, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
      return { status: response.status, body: (await response.json()) as { data: never; errors?: Record<string, unknown> } };
    };

    const expiring = await call('POST', '/v1/events/trigger', { name: 'welcome', to: 'ada', expiresAt: '2026-06-01T14:30:00+02:00' });
    expect(expiring.status).toBe(201);
    const { transactionId } = expiring.body.data as { transactionId: string };
    expect((await call('POST', '/v1/events/trigger', { name: 'welcome', to: 'ada' })).status).toBe(201);

    const subscriberHash = createHmac('sha256', 'key').update('ada').digest('hex');
    const session = await call('POST', '/v1/inbox/session', { applicationIdentifier: 'app', subscriber: { subscriberId: 'ada' }, subscriberHash });
    const inbox = `Bearer ${(session.body.data as { token: string }).token}`;
    const unread = async () => ((await call('GET', `/v1/inbox/notifications/count?filters=${encodeURIComponent('[{"read":false}]')}`, undefined, inbox)).body.data as { count: number }[])[0]!.count;
    const listed = async () => (await call('GET', '/v1/inbox/notifications', undefined, inbox)).body.data as { id: string; expiresAt?: string }[];
    expect((await listed()).map((n) => n.expiresAt ?? null).sort()).toEqual(['2026-06-01T12:30:00.000Z', null]);
    expect(await unread()).toBe(2);
    const expiringId = (await listed()).find((n) => n.expiresAt)!.id;

    clock.advance(30 * MINUTE);
    expect(await listed()).toHaveLength(1);
    expect(await unread()).toBe(1);
    expect((await call('GET', '/v1/subscribers/ada/notifications/feed')).body.data).toHaveLength(1);
    expect((await call('GET', '/v1/subscribers/ada/notifications/unseen')).body.data).toEqual({ count: 1 });
    expect((await call('PATCH', `/v1/inbox/notifications/${expiringId}/read`, {}, inbox)).status).toBe(404);

    await tidings.runDue();
    const explained = (await call('GET', `/v1/notifications/${transactionId}/explain`)).body.data as { entries: { decision: string }[] }[];
    expect(explained.flatMap((r) => r.entries.map((e) => e.decision))).toEqual(['delivered', 'expired']);

    const past = await call('POST', '/v1/events/trigger', { name: 'welcome', to: 'ada', expiresAt: '2026-06-01T12:00:00Z' });
    expect(past.status).toBe(422);
    expect(Object.keys(past.body.errors!)).toEqual(['expiresAt']);
    const malformed = await call('POST', '/v1/events/trigger', { name: 'welcome', to: 'ada', expiresAt: 'soon' });
    expect(malformed.status).toBe(422);
    expect(Object.keys(malformed.body.errors!)).toEqual(['expiresAt']);
  });

  it('a connected subscriber’s live counts drop when the sweep deletes an expired message', async () => {
    const env = await setup();
    const server = await listen(env.app);
    await env.a.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
    const client = await openSse(server.url, 'ada', KEY_A);
    const total = () => (client.last('counts') as { total: number } | undefined)?.total;
    try {
      await until(() => total() === 0);
      expect((await env.request('POST', '/v1/events/trigger', { name: 'welcome', to: 'ada', expiresAt: '2026-06-01T12:10:00Z' })).status).toBe(201);
      await until(() => total() === 1);
      env.clock.advance(10 * MINUTE);
      await env.a.runDue();
      await until(() => total() === 0);
    } finally {
      client.close();
      await server.close();
    }
  });
});
