import { createTidings } from '@tidings/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { ROUTES, SQL_BACKENDS, seedRouteRecords, sqlBackend, tableSnapshot } from './routes-list.js';



/** Strings no backend can store, mixed into the generated bodies and path segments. */
const poison = fc.constantFrom('a\u0000b', 'x\ud800', '\udfff', 'y'.repeat(300));

for (const { name, skip } of SQL_BACKENDS) describe(`fuzzing every route (${name})`, () => {
  if (skip) {
    it.skip(skip, () => {});
    return;
  }
  it('random bodies (poison strings and deep nesting among them), path parameters and headers: never a 5xx, errors carry the envelope, and rejected requests change nothing', async () => {
    const { storage, drop } = sqlBackend(name);
    const runs = name === 'sqlite' ? 1_000 : 250;
    const tidings = createTidings({ storage });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }], bodyLimit: 4_096 });
    await seedRouteRecords(tidings);
    const snapshot = () => tableSnapshot(storage);
    const segment = fc.oneof(fc.constantFrom('ada', 'w', 'primary', 'secondary', ''), fc.string({ maxLength: 12 }), poison);
    const value = fc.oneof(fc.jsonValue({ maxDepth: 4 }), poison, fc.integer({ min: 33, max: 1_500 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown));
    const shaped = fc.record({ name: fc.oneof(fc.constant('w'), poison), to: fc.oneof(fc.constant('ada'), poison, value), payload: value, subscriberId: fc.oneof(fc.constant('ada'), poison), key: poison, events: fc.array(fc.record({ name: fc.constant('w'), to: fc.oneof(fc.constant('ada'), poison), payload: value }), { maxLength: 3 }) }, { requiredKeys: [] });
    const body = fc.oneof(value.map((v) => JSON.stringify(v)), shaped.map((v) => JSON.stringify(v)), fc.string({ maxLength: 40 }), fc.constant(''));
    const headers = fc.record({ 'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'), 'idempotency-key': fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), authorization: fc.constantFrom('ApiKey k', 'ApiKey k', 'ApiKey wrong', 'Bearer k', '') }, { requiredKeys: ['content-type', 'authorization'] });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), segment, segment, segment, body, headers, async ([method, template], a, b, c, text, hdrs) => {
        // A lone surrogate has no UTF-8 form: send the bytes a broken client would (an encoded surrogate).
        const encode = (text: string) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd')).replace(/%EF%BF%BD/g, '%ED%A0%80');
        const path = template.replace('{a}', encode(a)).replace('{b}', encode(b)).replace('{c}', encode(c));
        const before = await snapshot();
        const clean = Object.fromEntries(Object.entries(hdrs).filter(([, v]) => v !== undefined)) as Record<string, string>;
        const response = await app.request(path, { method, headers: clean, ...(method !== 'GET' && { body: text }) });
        expect(response.status).toBeLessThan(500);
        // A 204 (as Novu's credential removal answers) has no body.
        if (response.status === 204) {
          expect(await response.text()).toBe('');
          return;
        }
        expect(response.headers.get('content-type')).toMatch(/application\/json/);
        const parsed = (await response.json()) as Record<string, unknown>;
        if (response.status >= 400) {
          expect(parsed).toMatchObject({ statusCode: response.status, message: expect.anything(), timestamp: expect.any(String), path: expect.any(String) });
          expect(await snapshot()).toBe(before);
        }
      }),
      { numRuns: runs },
    );
    await drop();
  }, 180_000);
});
