import { createTidings, type Storage } from '@tidings/core';
import { faultyStorage, manualClock, type FaultMode } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { sqliteStorage } from '@tidings/sqlite';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';

const MODES: readonly FaultMode[] = ['throw', 'commit-then-throw'];
const body = { events: [{ name: 'hello', to: ['a', 'b'], payload: { n: 1 } }, { name: 'hello', to: 'c', payload: { n: 2 } }, { name: 'nope', to: 'a' }] };

/**
 * One keyed bulk trigger as Novu's SDK sends it (no transactionIds), with a fault at `plan`, retried
 * by the client with the same key until it gets an answer that is not a 5xx or 409.
 */
async function run(storage: Storage, env: string, plan: { at: number; mode: FaultMode } | null) {
  const faulty = faultyStorage(storage);
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: faulty, clock, environmentId: env, inlineInApp: true });
  await tidings.workflows.upsert({ name: 'hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ payload.n }}' } }] });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [`key-${env}`] }], onError: () => undefined });
  faulty.arm(plan);
  let response: Response | undefined;
  for (let attempt = 0; attempt < 6; attempt++) {
    response = await app.request('/v1/events/trigger/bulk', {
      method: 'POST',
      headers: { authorization: `ApiKey key-${env}`, 'content-type': 'application/json', 'idempotency-key': 'one-call' },
      body: JSON.stringify(body),
    });
    if (response.status < 500 && response.status !== 409) break;
    // A key left in flight by a request that failed after claiming it frees up after a minute.
    if (response.status === 409) clock.advance(61_000);
  }
  const points = [...faulty.points];
  faulty.disarm();
  const answer = (await response!.json()) as { data: { status: string }[] };
  const state = [];
  for (const subscriberId of ['a', 'b', 'c']) {
    const [s] = await storage.subscribers.getMany(env, [subscriberId]);
    const items = s ? (await storage.messages.feed(env, s._id, { limit: 100, now: '9999-12-31T00:00:00.000Z' })).items : [];
    state.push({ subscriberId, contents: items.map((m) => m.content).sort(), transactions: new Set(items.map((m) => m.transactionId)).size });
  }
  return { status: response!.status, statuses: answer.data.map((r) => r.status), state, points };
}

describe.each([
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ filename: ':memory:' })],
])('an idempotent HTTP request under faults (%s)', (_name, create) => {
  it('any single storage fault, then the client’s retry with the same key: every event executed exactly once', { timeout: 120_000 }, async () => {
    const storage = create();
    let n = 0;
    const clean = await run(storage, `clean-${n++}`, null);
    expect(clean.status).toBe(201);
    expect(clean.statuses).toEqual(['processed', 'processed', 'error']);
    let tried = 0;
    for (let at = 0; at < clean.points.length; at++) {
      for (const mode of MODES) {
        const faulted = await run(storage, `env-${n++}`, { at, mode });
        expect({ status: faulted.status, statuses: faulted.statuses, state: faulted.state }, `fault #${at} (${mode}) at ${clean.points[at]}`).toEqual({ status: 201, statuses: clean.statuses, state: clean.state });
        tried++;
      }
    }
    expect(tried).toBe(clean.points.length * MODES.length);
    await storage.close();
  });
});
