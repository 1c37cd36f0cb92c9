/**
 * Webhooks to the app over HTTP: an endpoint made with the routes gets each event once its receiver
 * takes it, every attempt signed as Standard Webhooks says and checked on the receiving side with
 * the `standardwebhooks` library (1.1.1, pinned); the deliveries are listed with their attempts.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { webhookTransport } from '@tidings/providers';
import { sqliteStorage } from '@tidings/sqlite';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';

/** A receiver that answers 500 to the first `failFirst` requests, then 204, keeping what it verified. */
async function receiver(failFirst: number) {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(requests.length <= failFirst ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('webhooks over HTTP', () => {
  it('a receiver that answers 500 twice gets the event on the third attempt, each attempt verified with the standardwebhooks library; deliveries and endpoints are listed, secrets never shown again', async () => {
    const hooks = await receiver(2);
    const clock = manualClock('2026-06-01T12:00:00.000Z');
    const storage = sqliteStorage({ filename: ':memory:' });
    const tidings = createTidings({ storage, clock, webhookTransport: webhookTransport({ network: { allow: ['127.0.0.1'] } }) });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }] });
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await app.request(path, { method, headers: { authorization: 'ApiKey k', 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
    };
    try {
      const created = await api('POST', '/v1/webhook-endpoints', { url: hooks.url, events: ['message.sent'], description: 'our app' });
      expect(created).toMatchObject({ status: 201, body: { data: { url: hooks.url, events: ['message.sent'], active: true, secret: expect.stringMatching(/^whsec_/) } } });
      const { _id: endpointId, secret } = created.body.data;
      expect((await api('GET', '/v1/webhook-endpoints')).body.data).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);

      await tidings.workflows.upsert({ name: 'Hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'Hello' } }] });
      const { transactionId } = await tidings.trigger({ name: 'hi', to: 'ada' });
      for (const wait of [0, 5_000, 300_000]) {
        clock.advance(wait);
        await tidings.runDue();
      }
      const verifier = new Webhook(secret);
      const verified = hooks.requests.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; data: { message: { transactionId: string } } });
      expect(verified.map((v) => [v.type, v.data.message.transactionId])).toEqual([['message.sent', transactionId], ['message.sent', transactionId], ['message.sent', transactionId]]);
      expect(new Set(hooks.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(() => verifier.verify(hooks.requests[0]!.body.replace('Hello', 'Hullo'), hooks.requests[0]!.headers as Record<string, string>)).toThrow();

      const listed = await api('GET', `/v1/webhook-deliveries?endpointId=${endpointId}`);
      expect(listed.body).toEqual({ data: [expect.objectContaining({ _id: hooks.requests[0]!.headers['webhook-id'], status: 'delivered', attempts: 3, lastStatus: 204, eventType: 'message.sent' })], nextCursor: null });

      expect((await api('POST', '/v1/webhook-endpoints', { url: 'javascript:alert(1)', events: ['message.sent'] })).body).toMatchObject({ statusCode: 422, errors: { url: expect.anything() } });
      expect((await api('PATCH', `/v1/webhook-endpoints/${endpointId}`, { events: [] })).status).toBe(422);
      expect((await api('GET', '/v1/webhook-deliveries?status=lost')).status).toBe(422);
      expect((await api('PATCH', `/v1/webhook-endpoints/${endpointId}`, { active: false })).body.data).toMatchObject({ active: false });
      expect((await api('DELETE', `/v1/webhook-endpoints/${endpointId}`)).status).toBe(204);
      expect((await api('GET', `/v1/webhook-endpoints/${endpointId}`)).status).toBe(404);
    } finally {
      await storage.close();
      await hooks.close();
    }
  });
});
