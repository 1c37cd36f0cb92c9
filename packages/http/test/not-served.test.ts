import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as { statusCode: number; message: string; path: string } });

describe('404s that say what is not served', () => {
  it("a Novu route Tidings does not serve is named, with the SDK method, what to use instead and the compatibility page", async () => {
    const { request } = await setup();
    const messages = await answer(await request('GET', '/v1/messages?page=0&limit=10'));
    expect(messages).toMatchObject({ status: 404, body: { statusCode: 404, path: '/v1/messages' } });
    expect(messages.body.message).toMatch(/^Cannot GET \/v1\/messages: Tidings does not serve this route of Novu's API \(messages\.retrieve \/ messages\.list\); .*explain.*See https:\/\/\S+\/docs\/novu-compatibility\.md$/);
    for (const [method, path, novu] of [
      ['DELETE', '/v1/messages/m-1', 'messages.delete'],
      ['GET', '/v1/notifications/n-1', 'notifications.retrieve'],
      ['GET', '/v1/subscribers', 'subscribers.list'],
      ['PATCH', '/v1/subscribers/ada/preferences/welcome', 'subscribers.getPreference / updatePreference'],
      ['DELETE', '/v1/integrations/i-1', 'integrations.delete'],
      ['PUT', '/v2/workflows/w-1/sync', 'workflows.sync'],
    ] as const) {
      const { status, body } = await answer(await request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {}));
      expect(status, `${method} ${path}`).toBe(404);
      expect(body.message, `${method} ${path}`).toContain(novu);
      expect(body.message).toContain('novu-compatibility.md');
    }
  });

  it('any other unknown API path points to /openapi.json and the compatibility page; a served route is untouched', async () => {
    const { request } = await setup();
    const typo = await answer(await request('GET', '/v1/subscriber/ada'));
    expect(typo.status).toBe(404);
    expect(typo.body.message).toMatch(/^Cannot GET \/v1\/subscriber\/ada: no such route\. The routes served are listed at \/openapi\.json; .*novu-compatibility\.md$/);
    // The explain route under /v1/notifications is served, and its 404 is about the transaction.
    const explain = await answer(await request('GET', '/v1/notifications/unknown-tx/explain'));
    expect(explain.status).toBe(404);
    expect(explain.body.message).not.toContain('does not serve');
  });
});
