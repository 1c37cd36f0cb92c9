import { createTidings } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { ROUTES, SQL_BACKENDS, seedRouteRecords, sqlBackend, tableSnapshot } from './routes-list.js';


const deep = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** Values no backend can store or no stack can walk, as JSON text. */
const POISON: Record<string, string> = {
  'NUL character': JSON.stringify('a\u0000b'),
  'lone surrogate': '"x\\ud800y"',
  'lone low surrogate': '"\\udfff"',
  'long id (200 KB)': JSON.stringify('x'.repeat(200_000)),
  'deep array (10,000 levels)': deep(10_000),
  'deep object (5,000 levels)': deepObject(5_000),
};

/** One body putting the poison in every member the routes read. */
const kitchenSink = (v: string) =>
  `{"name":${v},"to":[${v},{"subscriberId":${v},"data":{"k":${v}}},{"type":"Topic","topicKey":${v}}],"payload":{"p":${v}},"overrides":{"o":${v}},"transactionId":${v},"actor":${v},"tenant":{"identifier":${v},"data":{"d":${v}}},` +
  `"subscriberId":${v},"firstName":${v},"data":{"d":${v}},"channels":[{"providerId":"slack","credentials":{"webhookUrl":${v}}}],"key":${v},"identifier":${v},"subscribers":[${v}],` +
  `"messageId":[${v}],"markAs":"read","status":"done","until":${v},"workflowId":${v},"channels2":{"email":false},"events":[{"name":"w","to":${v},"payload":{"p":${v}}}],` +
  `"steps":[{"template":{"type":"in_app","content":${v}}}],"triggers":[{"identifier":${v}}],"providerId":${v},"channel":"email","credentials":{"c":${v}}}`;

const SEGMENTS: Record<string, string> = {
  'NUL in a path segment': '%00ada',
  'invalid UTF-8 in a path segment': '%ED%A0%80',
  'long path segment (100 KB)': 'y'.repeat(100_000),
};


for (const { name, skip } of SQL_BACKENDS) describe(`poison inputs on every route (${name})`, () => {
  if (skip) {
    it.skip(skip, () => {});
    return;
  }
  it('NUL, lone surrogates, 200 KB ids, 10,000-level nesting, bad query values: a 4xx with the envelope, nothing changed, never a 500', { timeout: 180_000 }, async () => {
    const { storage, drop } = sqlBackend(name);
    const tidings = createTidings({ storage, inlineInApp: true });
    const errors: unknown[] = [];
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }], onError: (e) => errors.push(e) });
    await seedRouteRecords(tidings);
    const snapshot = () => tableSnapshot(storage);
    const requests: { label: string; method: string; path: string; body?: string }[] = [];
    for (const [method, template] of ROUTES) {
      const path = template.replace('{a}', 'ada').replace('{b}', 'w').replace('{c}', 'primary');
      for (const [label, value] of Object.entries(POISON)) if (method !== 'GET' && method !== 'DELETE') requests.push({ label: `${method} ${template} with ${label}`, method, path, body: kitchenSink(value) });
      for (const [label, segment] of Object.entries(SEGMENTS)) requests.push({ label: `${method} ${template} with ${label}`, method, path: template.replace('{a}', segment).replace('{b}', segment).replace('{c}', segment), ...(method !== 'GET' && method !== 'DELETE' && { body: '{}' }) });
    }
    for (const query of ['read=maybe', 'seen=1', 'archived=yes', 'limit=ten', 'limit=1e400', 'cursor=garbage', `cursor=${'z'.repeat(50_000)}`]) {
      requests.push({ label: `feed with ?${query}`, method: 'GET', path: `/v1/subscribers/ada/notifications/feed?${query}` });
    }
    for (const request of requests) {
      const before = await snapshot();
      const response = await app.request(request.path, {
        method: request.method,
        headers: { authorization: 'ApiKey k', 'content-type': 'application/json' },
        ...(request.body !== undefined && { body: request.body }),
      });
      expect(response.status, `${request.label}: ${String(errors.at(-1) ?? '')}`).toBeLessThan(500);
      if (response.status === 204) continue;
      const parsed = (await response.json()) as Record<string, unknown>;
      if (response.status >= 400) {
        expect(parsed, request.label).toMatchObject({ statusCode: response.status, message: expect.anything() });
        expect(await snapshot(), request.label).toBe(before);
      }
    }
    // Bad query values are 422s naming the parameter.
    const bad = await app.request('/v1/subscribers/ada/notifications/feed?read=maybe', { headers: { authorization: 'ApiKey k' } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ errors: { read: expect.anything() } });
    // A bulk call with one poisoned event: the others are processed, the poisoned one is an error naming its field.
    const bulk = await app.request('/v1/events/trigger/bulk', {
      method: 'POST',
      headers: { authorization: 'ApiKey k', 'content-type': 'application/json' },
      body: `{"events":[{"name":"w","to":"ada"},{"name":"w","to":"ada","payload":{"t":"a\\u0000b"}},{"name":"w","to":"ada","payload":${deepObject(100)}}]}`,
    });
    expect(bulk.status).toBe(201);
    const results = ((await bulk.json()) as { data: { status: string; error?: string[] }[] }).data;
    expect(results.map((r) => r.status)).toEqual(['processed', 'error', 'error']);
    expect(results[1]!.error).toEqual(['payload.t: must not contain NUL characters (\\u0000)']);
    expect(results[2]!.error![0]).toMatch(/^payload(\.a)+: is nested more than 32 levels deep$/);
    // Nothing poisoned reached a job either.
    await expect(tidings.runDue()).resolves.toBeGreaterThanOrEqual(0);
    expect(errors).toEqual([]);
    await drop();
  });
});
