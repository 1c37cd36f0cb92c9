/**
 * A workflow's `http` step against a real server on 127.0.0.1: a 503 with Retry-After is tried
 * again after it, a final 400 goes on under `continueOnFailure` (or ends the run without it), a
 * private address is refused unless the transport's `network.allow` lists it, and the answer's
 * fields reach the later steps' filters and templates. On the manual clock; no timings.
 */
import { createTidings, type WorkflowInput } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { afterEach, expect, it } from 'vitest';
import { httpStepTransport } from '../src/index.js';
import { webhookServer } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Respond = Parameters<typeof webhookServer>[0];

async function setup(respond: Respond, http: Partial<NonNullable<WorkflowInput['steps']>[number]['http']> = {}, allow = true) {
  const server = await webhookServer(respond);
  closers.push(server.close);
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const tidings = createTidings({ storage: memoryStorage(), clock, httpStepTransport: httpStepTransport(allow ? { network: { allow: ['127.0.0.1'] } } : {}) });
  await tidings.workflows.upsert({
    name: 'plan',
    triggers: [{ identifier: 'plan' }],
    steps: [
      {
        _id: 'account',
        template: { type: 'http' },
        http: {
          method: 'POST',
          url: `${server.url('/accounts/{{ payload.id }}')}?key={{ payload.token }}`,
          headers: { authorization: 'Bearer {{ payload.token }}' },
          body: { subscriber: '{{ subscriber.subscriberId }}' },
          responseSchema: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
          ...http,
        },
      },
      { _id: 'pro', template: { type: 'in_app', content: 'Plan {{ steps.account.plan }}' }, filters: [{ value: 'AND', children: [{ on: 'steps', field: 'account.plan', operator: 'EQUAL', value: 'pro' }] }] },
      { _id: 'failed', template: { type: 'in_app', content: 'Account check failed with {{ steps.account.error.status }}' }, filters: [{ value: 'AND', children: [{ on: 'steps', field: 'account.error.status', operator: 'LARGER', value: '0' }] }] },
    ],
  });
  const trigger = async () => {
    const { transactionId } = await tidings.trigger({ name: 'plan', to: { subscriberId: 'ada' }, payload: { id: 'a1', token: 'sekret-token' } });
    await tidings.runDue();
    return transactionId!;
  };
  const entries = async (transactionId: string) => (await tidings.explain(transactionId)).flatMap((record) => record.entries);
  const contents = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId)).map((m) => m.content);
  return { tidings, clock, server, trigger, entries, contents };
}

it('http step — a 503 with Retry-After is tried again after it; the answer reaches later filters and templates', async () => {
  const json: Record<string, string> = { 'content-type': 'application/json' };
  const { tidings, clock, server, trigger, entries, contents } = await setup((_, count) => (count === 1 ? { status: 503, headers: { 'retry-after': '120' } } : { status: 200, body: JSON.stringify({ plan: 'pro', seats: 3 }), headers: json }));
  const transactionId = await trigger();
  expect(server.received).toHaveLength(1);
  expect(server.received[0]).toMatchObject({ path: '/accounts/a1?key=sekret-token', json: { subscriber: 'ada' } });
  expect(server.received[0]!.headers['authorization']).toBe('Bearer sekret-token');
  const key = server.received[0]!.headers['idempotency-key'];
  expect(await contents(transactionId)).toEqual([]);
  const held = (await entries(transactionId)).find((e) => e.stepId === 'account')!;
  expect(held).toMatchObject({ type: 'http', decision: 'held' });
  expect(held.reason).toContain('answered 503');
  expect(held.reason).toContain('2026-06-01T12:02:00.000Z');

  clock.advance(60_000);
  await tidings.runDue();
  expect(server.received).toHaveLength(1);
  clock.advance(60_000);
  await tidings.runDue();
  expect(server.received).toHaveLength(2);
  // The try again carries the first try's idempotency key.
  expect(server.received[1]!.headers['idempotency-key']).toBe(key);
  expect(key).toMatch(/:0$/);
  expect(await contents(transactionId)).toEqual(['Plan pro']);
  const all = await entries(transactionId);
  expect(all.find((e) => e.stepId === 'account' && e.decision === 'ran')?.reason).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/accounts\/a1 answered 200$/);
  expect(all.find((e) => e.stepId === 'failed')).toMatchObject({ decision: 'skipped' });
  // No header value and no query string (where keys often travel) reaches explain.
  expect(JSON.stringify(all)).not.toContain('sekret-token');
});

it('http step — a final 400 with continueOnFailure leaves steps.<id>.error and the run goes on', async () => {
  const { server, trigger, entries, contents } = await setup(() => ({ status: 400, body: '{"error":"bad"}' }), { continueOnFailure: true });
  const transactionId = await trigger();
  expect(server.received).toHaveLength(1);
  expect(await contents(transactionId)).toEqual(['Account check failed with 400']);
  const entry = (await entries(transactionId)).find((e) => e.stepId === 'account')!;
  expect(entry).toMatchObject({ decision: 'failed' });
  expect(entry.reason).toMatch(/answered 400; the run goes on \(continueOnFailure\)$/);
});

it('http step — a final 400 without continueOnFailure ends the run, recorded in explain', async () => {
  const { tidings, server, trigger, entries, contents } = await setup(() => ({ status: 400 }));
  const transactionId = await trigger();
  expect(server.received).toHaveLength(1);
  expect(await contents(transactionId)).toEqual([]);
  expect((await entries(transactionId)).find((e) => e.stepId === 'account')?.reason).toMatch(/answered 400; the run ends here$/);
  expect(await tidings.runDue()).toBeDefined();
  expect(server.received).toHaveLength(1);
});

it('http step — an answer that does not match responseSchema is a final failure naming the field', async () => {
  const { trigger, entries, contents } = await setup(() => ({ status: 200, body: JSON.stringify({ plan: 7 }) }));
  const transactionId = await trigger();
  expect(await contents(transactionId)).toEqual([]);
  expect((await entries(transactionId)).find((e) => e.stepId === 'account')?.reason).toMatch(/does not match responseSchema: plan: .*; the run ends here$/);
});

it('http step — a private address is refused unless network.allow lists it; the server is never contacted', async () => {
  const { server, trigger, entries, contents } = await setup(() => ({ status: 200, body: '{"plan":"pro"}' }), { continueOnFailure: true }, false);
  const transactionId = await trigger();
  expect(server.received).toHaveLength(0);
  const entry = (await entries(transactionId)).find((e) => e.stepId === 'account')!;
  expect(entry).toMatchObject({ decision: 'failed' });
  expect(entry.reason).toContain('127.0.0.1 is not a public address');
  // Refused for good, not retried; the run went on to the later steps (whose filters read no status).
  expect(await contents(transactionId)).toEqual([]);
  expect((await entries(transactionId)).find((e) => e.stepId === 'failed')).toMatchObject({ decision: 'skipped', failedFilter: { on: 'steps', field: 'account.error.status' } });
});
