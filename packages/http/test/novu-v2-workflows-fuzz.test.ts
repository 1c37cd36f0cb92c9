/**
 * `/v2/workflows` under hostile input, on the SQL backends (as fuzz.test.ts does for the route table):
 * random and half-shaped bodies with strings no backend can store, deep JSON Logic, odd path segments
 * and query strings — never a 5xx, errors carry Novu's envelope, and a refused request changes nothing.
 */
import { createTidings } from '@tidings/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { SQL_BACKENDS, seedRouteRecords, sqlBackend, tableSnapshot } from './routes-list.js';

const V2_ROUTES: [string, string][] = [
  ['POST', '/v2/workflows'],
  ['GET', '/v2/workflows'],
  ['GET', '/v2/workflows/{a}'],
  ['PUT', '/v2/workflows/{a}'],
  ['PATCH', '/v2/workflows/{a}'],
  ['DELETE', '/v2/workflows/{a}'],
  ['GET', '/v2/workflows/{a}/steps/{b}'],
];

const poison = fc.constantFrom('a\u0000b', 'x\ud800', '\udfff', 'y'.repeat(300));

for (const { name, skip } of SQL_BACKENDS) describe(`fuzzing /v2/workflows (${name})`, () => {
  if (skip) {
    it.skip(skip, () => {});
    return;
  }
  it('random bodies, steps, skip conditions, path segments and queries: never a 5xx, and refused requests change nothing', async () => {
    const { storage, drop } = sqlBackend(name);
    const tidings = createTidings({ storage });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }], bodyLimit: 8_192 });
    await seedRouteRecords(tidings);
    for (const identifier of ['n', 'other']) await tidings.workflows.upsert({ name: identifier, triggers: [{ identifier }], steps: [{ template: { type: 'sms', content: 'x' } }] });
    const text = fc.oneof(fc.string({ maxLength: 10 }), poison, fc.constantFrom('{{ payload.x }}', '{{ payload.x ', '{{payload.k}}'));
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), poison, fc.integer({ min: 30, max: 200 }).map((n) => JSON.parse('{"and":['.repeat(n) + '{}' + ']}'.repeat(n)) as unknown));
    const skip = fc.oneof(
      value,
      fc.record({ '==': fc.tuple(fc.record({ var: fc.oneof(fc.constantFrom('payload.a', 'subscriber.email', 'steps.x'), text) }), fc.oneof(text, fc.integer(), fc.constant(null))) }),
      fc.record({ and: fc.array(fc.record({ in: fc.tuple(fc.record({ var: text }), fc.array(text, { maxLength: 3 })) }), { maxLength: 3 }) }),
    );
    const controls = fc.record(
      { body: text, subject: text, amount: fc.oneof(fc.integer({ min: -2, max: 5 }), value), unit: fc.oneof(fc.constantFrom('minutes', 'days'), text), digestKey: text, skip, redirect: fc.record({ url: text }), editorType: fc.constantFrom('html', 'block', 'text'), type: fc.constantFrom('regular', 'timed') },
      { requiredKeys: [] },
    );
    const step = fc.record({ _id: text, stepId: text, name: text, type: fc.oneof(fc.constantFrom('in_app', 'email', 'sms', 'chat', 'push', 'digest', 'delay', 'throttle'), text), controlValues: fc.oneof(controls, value) }, { requiredKeys: ['name', 'type'] });
    const shaped = fc.record(
      { name: text, workflowId: fc.oneof(fc.constant('w'), text), steps: fc.oneof(fc.array(step, { maxLength: 3 }), value), active: fc.boolean(), tags: fc.oneof(fc.array(text, { maxLength: 2 }), value), preferences: value, __source: text, origin: text },
      { requiredKeys: [] },
    );
    // Close to valid: a name, known step types, controls that mostly fit.
    const plausibleStep = fc.record({ name: fc.constantFrom('S', 'In app', 'Mail'), type: fc.constantFrom('in_app', 'sms', 'chat', 'push', 'digest', 'delay'), controlValues: fc.record({ body: text, skip: fc.option(skip, { freq: 3, nil: undefined }) }, { requiredKeys: ['body'] }) });
    const plausible = fc.record({ name: fc.constantFrom('N', 'Other'), workflowId: fc.oneof({ arbitrary: fc.constantFrom('w', 'n', 'other'), weight: 4 }, fc.stringMatching(/^[a-z]{1,4}$/), poison), steps: fc.array(plausibleStep, { maxLength: 3 }), active: fc.boolean() }, { requiredKeys: ['name', 'steps'] });
    const body = fc.oneof(
      value.map((v) => JSON.stringify(v)),
      shaped.map((v) => JSON.stringify(v)),
      { arbitrary: plausible.map((v) => JSON.stringify(v)), weight: 4 },
      fc.string({ maxLength: 30 }),
      fc.constant(''),
    );
    // Mostly ids the runs create and delete (the seeded `w`, and the slugs of the plausible names), so updates and deletes land.
    const segment = fc.oneof({ arbitrary: fc.constantFrom('w', 'n', 'other'), weight: 5 }, fc.constantFrom('missing', ''), fc.string({ maxLength: 10 }), poison);
    const query = fc.oneof(fc.constant(''), fc.constantFrom('?limit=0', '?limit=5&offset=1', '?tags=a&tags=b', '?status=ACTIVE&status=NOPE', '?orderBy=name&orderDirection=ASC', '?query=%00', '?limit=abc', '?unknown=1'));
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...V2_ROUTES), segment, segment, body, query, async ([method, template], a, b, text, q) => {
        const encode = (t: string) => encodeURIComponent(t.replace(/[\ud800-\udfff]/g, '\ufffd')).replace(/%EF%BF%BD/g, '%ED%A0%80');
        const path = template.replace('{a}', encode(a)).replace('{b}', encode(b)) + (method === 'GET' ? q : '');
        const before = await tableSnapshot(storage);
        const response = await app.request(path, { method, headers: { authorization: 'ApiKey k', 'content-type': 'application/json' }, ...(method !== 'GET' && method !== 'DELETE' && { body: text }) });
        expect(response.status, `${method} ${path} ${text}`).toBeLessThan(500);
        statuses.add(response.status);
        if (response.status === 204) return;
        const parsed = (await response.json()) as Record<string, unknown>;
        if (response.status >= 400) {
          expect(parsed).toMatchObject({ statusCode: response.status, message: expect.anything(), timestamp: expect.any(String), path: expect.any(String) });
          expect(await tableSnapshot(storage)).toBe(before);
        }
      }),
      {
        numRuns: name === 'sqlite' ? 1_000 : 200,
        // One request of each outcome runs first, whatever the seed, so the random ones are checked against stores and refusals alike.
        examples: [
          [V2_ROUTES[0]!, '', '', JSON.stringify({ name: 'Example', workflowId: 'example', steps: [{ name: 'S', type: 'in_app', controlValues: { body: 'hi' } }] }), ''],
          [V2_ROUTES[2]!, 'example', '', '', ''],
          [V2_ROUTES[0]!, '', '', JSON.stringify({ name: 'Example', steps: 'none' }), ''],
          [V2_ROUTES[5]!, 'example', '', '', ''],
          [V2_ROUTES[2]!, 'missing', '', '', ''],
        ],
      },
    );
    // The runs reached the stores and the refusals alike.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 201, 204, 404, 422]));
    await drop();
  }, 180_000);
});
