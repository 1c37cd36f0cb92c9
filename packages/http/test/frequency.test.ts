/**
 * Throttle steps, caps and integration send rates over HTTP: a workflow with a throttle step made
 * through `POST /v1/workflows`, caps set and read at `/v1/caps`, and an integration's `rateLimit` and `maxInFlight`.
 */
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

describe('throttle, caps and send rates over HTTP', () => {
  it('a throttle step saved over HTTP ends runs past its limit; caps are replaced and read at /v1/caps, bad ones are 422 naming the field and change nothing', async () => {
    const { a, request } = await setup();
    const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as { data: any; message?: string } });
    const saved = await json(
      await request('POST', '/v1/workflows', {
        name: 'Mentions',
        triggers: [{ identifier: 'mention' }],
        tags: ['social'],
        steps: [{ template: { type: 'throttle' }, metadata: { amount: 1, unit: 'hours', limit: 1, key: 'thread' } }, { template: { type: 'in_app', content: 'Mentioned in {{ payload.thread }}' } }],
      }),
    );
    expect(saved.status).toBe(201);
    // Novu's v2 read shows the throttle as @novu/framework's outputs.
    const v2 = await json(await request('GET', '/v2/workflows/mention'));
    expect(v2.body.data.steps[0]).toMatchObject({ type: 'throttle', controls: { values: { type: 'fixed', amount: 1, unit: 'hours', threshold: 1, throttleKey: '{{payload.thread}}' } } });
    const refused = await json(await request('POST', '/v1/workflows', { name: 'Bad', triggers: [{ identifier: 'bad' }], steps: [{ template: { type: 'throttle' }, metadata: { amount: 1, unit: 'hours' } }] }));
    expect(refused).toMatchObject({ status: 422, body: { message: expect.stringContaining('steps[0].metadata.limit') } });

    expect(await json(await request('GET', '/v1/caps'))).toEqual({ status: 200, body: { data: { code: [], stored: [] } } });
    const caps = [{ id: 'social', tags: ['social'], limit: 2, per: { amount: 1, unit: 'days' } }];
    expect(await json(await request('PUT', '/v1/caps', { caps }))).toEqual({ status: 200, body: { data: { stored: [{ ...caps[0], mode: 'skip' }] } } });
    const bad = await json(await request('PUT', '/v1/caps', { caps: [{ tags: ['social'], limit: 0, per: { amount: 1, unit: 'days' } }] }));
    expect(bad).toMatchObject({ status: 422, body: { message: expect.stringContaining('caps[0].limit') } });
    expect((await json(await request('GET', '/v1/caps'))).body.data.stored).toHaveLength(1);

    for (const thread of ['a', 'a', 'b', 'c']) expect((await request('POST', '/v1/events/trigger', { name: 'mention', to: 'ada', payload: { thread } })).status).toBe(201);
    await a.runDue();
    // The second "a" is throttled; "c" is over the cap of 2 a day.
    const feed = await json(await request('GET', '/v1/subscribers/ada/notifications/feed'));
    expect(feed.body.data.map((m: { content: string }) => m.content).sort()).toEqual(['Mentioned in a', 'Mentioned in b']);
  });

  it('an integration’s rateLimit is stored, shown and removed over HTTP', async () => {
    const { request } = await setup();
    const created = await request('POST', '/v1/integrations', { providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'k', from: 'a@b.c' }, rateLimit: { messages: 10 } });
    expect(created.status).toBe(201);
    const integration = ((await created.json()) as { data: { _id: string; rateLimit: unknown } }).data;
    expect(integration.rateLimit).toEqual({ messages: 10, seconds: 1 });
    const bad = await request('PUT', `/v1/integrations/${integration._id}`, { rateLimit: { messages: 10, seconds: 0 } });
    expect(bad.status).toBe(422);
    const removed = await request('PUT', `/v1/integrations/${integration._id}`, { rateLimit: null });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { data: Record<string, unknown> }).data).not.toHaveProperty('rateLimit');
  });

  it('an integration’s maxInFlight is stored, shown, refused naming it when out of bounds, and removed over HTTP', async () => {
    const { request } = await setup();
    const created = await request('POST', '/v1/integrations', { providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'k', from: 'a@b.c' }, maxInFlight: 5 });
    expect(created.status).toBe(201);
    const integration = ((await created.json()) as { data: { _id: string; maxInFlight: unknown } }).data;
    expect(integration.maxInFlight).toBe(5);
    const bad = await request('PUT', `/v1/integrations/${integration._id}`, { maxInFlight: 1_001 });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { message: string }).message).toContain('maxInFlight');
    const listed = (await (await request('GET', '/v1/integrations')).json()) as { data: { maxInFlight?: number }[] };
    expect(listed.data.map((i) => i.maxInFlight)).toEqual([5]);
    const removed = await request('PUT', `/v1/integrations/${integration._id}`, { maxInFlight: null });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { data: Record<string, unknown> }).data).not.toHaveProperty('maxInFlight');
  });
});
