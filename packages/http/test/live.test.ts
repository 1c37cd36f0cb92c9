import { describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../../../test-support/sse-client.js';
import { KEY_A, KEY_B, listen, setup } from './helpers.js';

/** Resolves once `condition` holds, checking after every turn of the event loop (no fixed delays). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const named = (client: SseClient) => client.events.filter((e) => e.event !== 'ping').map((e) => e.event);

/** Ada's live stream on a real port, once its first `counts` arrived; `close()` ends both. */
async function adaListening() {
  const env = await setup();
  const server = await listen(env.app);
  await env.a.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
  const client = await openSse(server.url, 'ada', KEY_A);
  await until(() => named(client).length === 1);
  const close = async () => {
    client.close();
    await server.close();
  };
  return { env, client, close };
}

describe('live stream', () => {
  it('pushes counts, new messages and count changes to that subscriber only', async () => {
    const { env, client, close } = await adaListening();
    try {
      await env.a.trigger({ name: 'welcome', to: 'bob' });
      await env.a.trigger({ name: 'welcome', to: 'ada' });
      await env.a.runDue();
      await until(() => named(client).length === 3);
      const [message] = (await env.a.messages.feed('ada')).items;
      await env.a.messages.markAs('ada', { messageId: message!._id, markAs: 'seen' });
      await until(() => named(client).length === 5);
      const events = client.events.filter((e) => e.event !== 'ping');
      expect(events.map((e) => e.event)).toEqual(['counts', 'message', 'counts', 'update', 'counts']);
      expect(events[0]!.data).toEqual({ total: 0, unread: 0, unseen: 0 });
      expect(events[1]!.data).toMatchObject({ content: 'Hi Ada', subscriberId: 'ada' });
      expect(events.at(-1)!.data).toEqual({ total: 1, unread: 1, unseen: 0 });
    } finally {
      await close();
    }
  });

  it('a bulk action is one burst: `resync` and one counts, not a frame per message', async () => {
    const { env, client, close } = await adaListening();
    try {
      await env.a.triggerBulk(Array.from({ length: 60 }, () => ({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada' } })));
      await env.a.runDue();
      await until(() => client.last('counts') !== undefined && (client.last('counts') as { total: number }).total === 60);
      const before = client.events.length;
      await env.a.messages.readAll('ada');
      await until(() => (client.last('counts') as { unread: number }).unread === 0);
      const burst = client.events.slice(before).filter((e) => e.event !== 'ping').map((e) => e.event);
      expect(burst).toEqual(['resync', 'counts']);
      expect(client.last('counts')).toEqual({ total: 60, unread: 0, unseen: 0 });
    } finally {
      await close();
    }
  });

  it('needs auth per connection, and another environment’s subscriber is a 404', async () => {
    const env = await setup();
    await env.a.subscribers.upsert({ subscriberId: 'ada' });
    expect((await env.app.request('/v1/subscribers/ada/events')).status).toBe(401);
    expect((await env.request('GET', '/v1/subscribers/ada/events', undefined, {}, KEY_B)).status).toBe(404);
  });
});

describe('inbox routes', () => {
  it('snooze, unsnooze, archive, unarchive, counts and feed filters', async () => {
    const { request, a, clock } = await setup();
    await a.trigger({ name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada' } });
    await a.runDue();
    const [message] = (await a.messages.feed('ada')).items;
    const until = new Date(clock.now().getTime() + 60_000).toISOString();
    expect((await request('POST', `/v1/subscribers/ada/messages/${message!._id}/snooze`, { until })).status).toBe(201);
    expect(((await (await request('GET', '/v1/subscribers/ada/notifications/feed')).json()) as any).data).toEqual([]);
    expect((await request('POST', `/v1/subscribers/ada/messages/${message!._id}/snooze`, { until: 'tomorrow' })).status).toBe(422);
    expect((await request('POST', `/v1/subscribers/ada/messages/${message!._id}/unsnooze`)).status).toBe(201);
    expect((await request('POST', `/v1/subscribers/ada/messages/${message!._id}/archive`)).status).toBe(201);
    expect(((await (await request('GET', '/v1/subscribers/ada/notifications/counts')).json()) as any).data).toEqual({ total: 0, unread: 0, unseen: 0 });
    expect(((await (await request('GET', '/v1/subscribers/ada/notifications/feed?archived=true')).json()) as any).data).toHaveLength(1);
    expect((await request('POST', `/v1/subscribers/ada/messages/${message!._id}/unarchive`)).status).toBe(201);
    expect(((await (await request('GET', '/v1/subscribers/ada/notifications/feed?tags=none')).json()) as any).data).toEqual([]);
  });
});
