import { describe, expect, it } from 'vitest';
import { KEY_A, KEY_B, listen, setup } from './helpers.js';

/** Reads Server-Sent Events from a fetch response until `until` says stop. */
async function readEvents(response: Response, until: (events: { event: string; data: any }[]) => boolean) {
  const events: { event: string; data: any }[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined) events.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe('live stream', () => {
  it('pushes counts, new messages and count changes to that subscriber only', async () => {
    const env = await setup();
    const server = await listen(env.app);
    try {
      await env.a.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
      const response = await fetch(`${server.url}/v1/subscribers/ada/events`, { headers: { authorization: `ApiKey ${KEY_A}` } });
      expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
      const reading = readEvents(response, (events) => events.filter((e) => e.event === 'counts').length >= 3);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await env.a.trigger({ name: 'welcome', to: 'bob' });
      await env.a.trigger({ name: 'welcome', to: 'ada' });
      await env.a.runDue();
      const [message] = (await env.a.messages.feed('ada')).items;
      await env.a.messages.markAs('ada', { messageId: message!._id, markAs: 'seen' });
      const events = await reading;
      expect(events.filter((e) => e.event !== 'ping').map((e) => e.event)).toEqual(['counts', 'message', 'counts', 'update', 'counts']);
      expect(events[0]!.data).toEqual({ total: 0, unread: 0, unseen: 0 });
      expect(events[1]!.data).toMatchObject({ content: 'Hi Ada', subscriberId: 'ada' });
      expect(events.at(-1)!.data).toEqual({ total: 1, unread: 1, unseen: 0 });
    } finally {
      await server.close();
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
