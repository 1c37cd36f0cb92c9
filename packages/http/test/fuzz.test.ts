import { randomUUID } from 'node:crypto';
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { ROUTES, TABLES } from './routes-list.js';

const pgUrl = process.env['TIDINGS_TEST_PG_URL'];

async function backend(name: string) {
  if (name === 'sqlite') {
    const storage = sqliteStorage({ filename: ':memory:' });
    return { storage, runs: 1_000, drop: () => storage.close() };
  }
  const schema = `tidings_fuzz_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const storage = postgresStorage({ connectionString: pgUrl!, schema, max: 4 });
  return {
    storage,
    runs: 250,
    async drop() {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(storage.db);
      await storage.close();
    },
  };
}

/** Strings no backend can store, mixed into the generated bodies and path segments. */
const poison = fc.constantFrom('a\u0000b', 'x\ud800', '\udfff', 'y'.repeat(300));

describe.each(['sqlite', ...(pgUrl ? ['postgres'] : [])])('fuzzing every route (%s)', (name) => {
  it('random bodies (poison strings and deep nesting among them), path parameters and headers: never a 5xx, errors carry the envelope, and rejected requests change nothing', async () => {
    const { storage, runs, drop } = await backend(name);
    const tidings = createTidings({ storage });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }], bodyLimit: 4_096 });
    await tidings.workflows.upsert({ name: 'W', triggers: [{ identifier: 'w' }], steps: [{ template: { type: 'in_app', content: 'x' } }] });
    await tidings.subscribers.upsert({ subscriberId: 'ada' });
    const snapshot = async () => {
      const parts: string[] = [];
      for (const table of TABLES) parts.push(JSON.stringify((await sql`select * from ${sql.table(table)} order by 1, 2`.execute(storage.db)).rows));
      return parts.join('\n');
    };
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
