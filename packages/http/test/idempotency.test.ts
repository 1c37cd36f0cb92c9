import { describe, expect, it } from 'vitest';
import type { Tidings } from '@tidings/core';
import { setup } from './helpers.js';

/** How many messages the subscribers have once every job has run: one per execution of the trigger. */
async function executions(tidings: Tidings, subscriberIds: readonly string[]) {
  await tidings.runDue();
  let total = 0;
  for (const id of subscriberIds) total += (await tidings.messages.counts(id)).total;
  return total;
}

describe('idempotency-key', () => {
  it('the same key and body replays the first response; another body is 422; GETs ignore the key', async () => {
    const { request, a } = await setup();
    const body = { name: 'welcome', to: 'ada', payload: { n: 1 } };
    const first = await request('POST', '/v1/events/trigger', body, { 'idempotency-key': 'k-1' });
    const again = await request('POST', '/v1/events/trigger', body, { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replay')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await executions(a, ['ada'])).toBe(1);
    const other = await request('POST', '/v1/events/trigger', { ...body, payload: { n: 2 } }, { 'idempotency-key': 'k-1' });
    expect(other.status).toBe(422);
    expect((await request('GET', '/v1/integrations/active', undefined, { 'idempotency-key': 'k-1' })).status).toBe(200);
    expect((await request('POST', '/v1/events/trigger', body, { 'idempotency-key': 'x'.repeat(256) })).status).toBe(400);
  });

  it('concurrent requests with one key execute once: the others get 409 with Retry-After or the replay', async () => {
    const { request, a } = await setup();
    const body = { events: Array.from({ length: 50 }, (_, i) => ({ name: 'welcome', to: `s${i}` })) };
    const responses = await Promise.all(Array.from({ length: 6 }, () => request('POST', '/v1/events/trigger/bulk', body, { 'idempotency-key': 'same' })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    for (const r of responses.filter((r) => r.status === 409)) expect(r.headers.get('retry-after')).toBe('1');
    expect(await executions(a, Array.from({ length: 50 }, (_, i) => `s${i}`))).toBe(50);
  });

  it('keys are per environment and expire after 24 hours', async () => {
    const { request, clock, a } = await setup();
    const body = { name: 'welcome', to: 'ada' };
    await request('POST', '/v1/events/trigger', body, { 'idempotency-key': 'day' });
    clock.advance(24 * 3_600_000 + 1);
    const later = await request('POST', '/v1/events/trigger', body, { 'idempotency-key': 'day' });
    expect(later.headers.get('idempotency-replay')).toBeNull();
    expect(await executions(a, ['ada'])).toBe(2);
  });
});
