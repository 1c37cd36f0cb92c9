import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';

const ROUTES: [string, string][] = [
  ['PATCH', '/v2/subscribers/{a}/preferences'],
  ['POST', '/v1/subscribers/{a}/messages/mark-as'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/actions/{c}'],
  ['GET', '/v1/integrations/active'],
  ['GET', '/v1/topics/{a}/subscribers/{b}'],
  ['POST', '/v1/events/trigger/bulk'],
  ['POST', '/v1/events/trigger'],
  ['DELETE', '/v1/events/trigger/{a}'],
  ['POST', '/v1/subscribers'],
  ['GET', '/v1/subscribers/{a}'],
  ['PUT', '/v1/subscribers/{a}'],
  ['GET', '/v1/subscribers/{a}/notifications/feed'],
  ['POST', '/v1/topics'],
  ['POST', '/v1/topics/{a}/subscribers'],
  ['POST', '/v1/topics/{a}/subscribers/removal'],
  ['POST', '/v1/integrations'],
  ['POST', '/v1/tenants'],
  ['POST', '/v1/workflows'],
  ['GET', '/v1/workflows/{a}'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/snooze'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/unsnooze'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/archive'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/unarchive'],
  ['GET', '/v1/subscribers/{a}/notifications/counts'],
  ['GET', '/v1/subscribers/{a}/notifications/unseen'],
  ['GET', '/v2/subscribers/{a}/preferences'],
  ['DELETE', '/v1/subscribers/{a}'],
];
// GET /v1/subscribers/{id}/events is left out: a valid request opens a stream that never ends.

// Domain tables only: idempotency records are request bookkeeping and may change.
const TABLES = ['tidings_workflows', 'tidings_subscribers', 'tidings_topics', 'tidings_topic_members', 'tidings_tenants', 'tidings_integrations', 'tidings_preferences', 'tidings_notifications', 'tidings_jobs', 'tidings_messages', 'tidings_digests'];

describe('fuzzing every route', () => {
  it('random bodies, path parameters and headers: never a 5xx, errors carry the envelope, and rejected requests change nothing', async () => {
    const storage = sqliteStorage({ filename: ':memory:' });
    const tidings = createTidings({ storage });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }], bodyLimit: 4_096 });
    await tidings.workflows.upsert({ name: 'W', triggers: [{ identifier: 'w' }], steps: [{ template: { type: 'in_app', content: 'x' } }] });
    await tidings.subscribers.upsert({ subscriberId: 'ada' });
    const snapshot = async () => {
      const parts: string[] = [];
      for (const table of TABLES) parts.push(JSON.stringify((await sql`select * from ${sql.table(table)}`.execute(storage.db)).rows));
      return parts.join('\n');
    };
    const segment = fc.oneof(fc.constantFrom('ada', 'w', 'primary', 'secondary', ''), fc.string({ maxLength: 12 }));
    const body = fc.oneof(fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)), fc.string({ maxLength: 40 }), fc.constant(''));
    const headers = fc.record({ 'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'), 'idempotency-key': fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), authorization: fc.constantFrom('ApiKey k', 'ApiKey k', 'ApiKey wrong', 'Bearer k', '') }, { requiredKeys: ['content-type', 'authorization'] });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), segment, segment, segment, body, headers, async ([method, template], a, b, c, text, hdrs) => {
        const path = template.replace('{a}', encodeURIComponent(a)).replace('{b}', encodeURIComponent(b)).replace('{c}', encodeURIComponent(c));
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
      { numRuns: 1_000 },
    );
    await storage.close();
  }, 120_000);
});
