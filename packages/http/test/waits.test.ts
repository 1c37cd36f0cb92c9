/**
 * Waits over HTTP: `POST /v1/signals` resumes a waiting run and refuses bad bodies naming the field;
 * tokens are listed, read and completed with the API key, or through their signed URL without one,
 * once (409 after).
 */
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

describe('signals and tokens over HTTP', () => {
  it('POST /v1/signals resumes the runs waiting for it; a bad body is 422 naming the field', async () => {
    const { a, request } = await setup();
    const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as { data: any; message?: string } });
    expect(
      (
        await request('POST', '/v1/workflows', {
          name: 'Order',
          triggers: [{ identifier: 'order' }],
          steps: [{ _id: 'paid', template: { type: 'wait' }, metadata: { event: 'order.paid', match: 'data.orderId', timeout: '1d' } }, { template: { type: 'in_app', content: 'paid {{ steps.paid.event.data.total }}' } }],
        })
      ).status,
    ).toBe(201);
    await request('POST', '/v1/events/trigger', { name: 'order', to: 'ada', payload: { orderId: 'o-1' } });
    await a.runDue();
    expect(await json(await request('POST', '/v1/signals', { name: 'order.paid', data: 'x' }))).toMatchObject({ status: 422, body: { message: expect.stringContaining('data') } });
    expect(await json(await request('POST', '/v1/signals', { data: {} }))).toMatchObject({ status: 422, body: { message: expect.stringContaining('name') } });
    const sent = await json(await request('POST', '/v1/signals', { name: 'order.paid', subscriberId: 'ada', data: { orderId: 'o-1', total: 12 } }));
    expect(sent).toMatchObject({ status: 201, body: { data: { resumed: 1, cancelled: 0 } } });
    await a.runDue();
    const feed = await json(await request('GET', '/v1/subscribers/ada/notifications/feed'));
    expect(feed.body.data.map((m: { content: string }) => m.content)).toEqual(['paid 12']);
  });

  it('tokens: listed and completed with the API key or their signed URL (no key), once; a bad signature is 401', async () => {
    const { a, app, request } = await setup();
    const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as { data: any; message?: string } });
    await request('POST', '/v1/workflows', { name: 'Approve', triggers: [{ identifier: 'approve' }], steps: [{ _id: 'ok', template: { type: 'wait' }, metadata: { token: true, timeout: '1d' } }, { template: { type: 'in_app', content: 'approved: {{ steps.ok.output.note }}' } }] });
    await request('POST', '/v1/events/trigger', { name: 'approve', to: ['ada', 'bob'] });
    await a.runDue();
    const [ada] = (await json(await request('GET', '/v1/tokens?subscriberId=ada'))).body.data;
    const [bob] = (await json(await request('GET', '/v1/tokens?subscriberId=bob'))).body.data;
    expect((await json(await request('GET', `/v1/tokens/${ada.id}`))).body.data).toMatchObject({ status: 'waiting', stepId: 'ok' });
    expect(await json(await request('POST', `/v1/tokens/${ada.id}/complete`, { output: { note: 'key' } }))).toMatchObject({ status: 200, body: { data: { status: 'completed' } } });
    expect((await request('POST', `/v1/tokens/${ada.id}/complete`, { output: {} })).status).toBe(409);
    // The signed URL needs no API key.
    const url = new URL(bob.url, 'http://local');
    const post = (path: string, body: unknown) => app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post(`${url.pathname}?sig=bad`, { note: 'x' })).status).toBe(401);
    expect((await post(`${url.pathname}${url.search}`, { note: 'link' })).status).toBe(200);
    expect((await post(`${url.pathname}${url.search}`, { note: 'again' })).status).toBe(409);
    expect((await post(`${url.pathname}`, { output: {} })).status).toBe(401);
    await a.runDue();
    for (const [id, note] of [['ada', 'key'], ['bob', 'link']]) {
      expect((await json(await request('GET', `/v1/subscribers/${id}/notifications/feed`))).body.data.map((m: { content: string }) => m.content)).toEqual([`approved: ${note}`]);
    }
  });

  it('a workflow saved over HTTP with cancelOn: a matching POST /v1/signals cancels the subscriber’s pending run; a bad cancelOn is 422 naming the field', async () => {
    const { a, clock, request } = await setup();
    const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as { data: any; message?: string } });
    const steps = [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'task {{ payload.taskId }} is open' } }];
    expect((await json(await request('POST', '/v1/workflows', { name: 'Bad', triggers: [{ identifier: 'bad' }], cancelOn: [{ match: 'data.x' }], steps }))).body.message).toMatch(/cancelOn\[0\]\.event/);
    const saved = await json(await request('POST', '/v1/workflows', { name: 'Remind', triggers: [{ identifier: 'remind' }], cancelOn: [{ event: 'task.resolved', match: 'data.taskId' }], steps }));
    expect(saved.body.data.cancelOn).toEqual([{ event: 'task.resolved', match: 'data.taskId' }]);
    for (const taskId of ['t-1', 't-2']) await request('POST', '/v1/events/trigger', { name: 'remind', to: 'ada', payload: { taskId } });
    await a.runDue();
    expect((await json(await request('POST', '/v1/signals', { name: 'task.resolved', subscriberId: 'ada', data: { taskId: 't-1' } }))).body.data).toMatchObject({ cancelled: 1 });
    clock.advance(3_600_000);
    await a.runDue();
    expect((await json(await request('GET', '/v1/subscribers/ada/notifications/feed'))).body.data.map((m: { content: string }) => m.content)).toEqual(['task t-2 is open']);
  });
});
