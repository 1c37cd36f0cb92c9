/**
 * `POST /v1/events/trigger/broadcast` through Novu's own SDKs (`@novu/api` 3.19.1's `triggerBroadcast`,
 * `@novu/node` 2.6.6's `broadcast`), over a real port: their response parsers pass, and every
 * subscriber of the environment gets the message once, through the paged fan-out.
 */
import { Novu } from '@novu/api';
import { ValidationErrorDto } from '@novu/api/models/errors';
import { Novu as NovuNode } from '@novu/node';
import { createTidings } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { listen } from './helpers.js';

const KEY = 'broadcast-key';
let tidings: ReturnType<typeof createTidings>;
let served: Awaited<ReturnType<typeof listen>>;
let novu: Novu;
let legacy: NovuNode;
const everyone = Array.from({ length: 12 }, (_, i) => `sub-${String(i).padStart(2, '0')}`);

beforeAll(async () => {
  // A small inline room and chunk, so twelve subscribers already go out as paged fan-out jobs.
  tidings = createTidings({ storage: memoryStorage(), inlineLimit: 3, fanoutChunk: 5 });
  served = await listen(createHttpApp({ environments: [{ tidings, apiKeys: [KEY] }] }));
  novu = new Novu({ secretKey: KEY, serverURL: served.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 });
  legacy = new NovuNode(KEY, { backendUrl: served.url });
  await tidings.workflows.upsert({ name: 'Announcement', triggers: [{ identifier: 'announcement' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}: {{ payload.text }}' } }] });
  await tidings.workflows.upsert({ name: 'Paused', triggers: [{ identifier: 'paused' }], active: false, steps: [{ template: { type: 'in_app', content: 'never' } }] });
  for (const id of everyone) await tidings.subscribers.upsert({ subscriberId: id, firstName: id });
});
afterAll(() => served?.close());
beforeEach(async () => {
  while ((await tidings.runDue()) > 0);
});

async function http(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${served.url}${path}`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Runs the fan-out to its end, then who got the trigger's messages. */
async function reached(transactionId: string) {
  while ((await tidings.runDue()) > 0);
  return (await tidings.messages.byTransaction(transactionId)).map((m) => m.subscriberId).sort();
}

describe('POST /v1/events/trigger/broadcast', () => {
  it('@novu/api triggerBroadcast: the SDK parses { acknowledged, status, transactionId }; each subscriber gets the message once; explain shows one trigger', async () => {
    const { result } = await novu.triggerBroadcast({ name: 'announcement', payload: { text: 'maintenance at 2am' }, agentId: 'agent-1', overrides: {} });
    expect(Object.keys(result).sort()).toEqual(['acknowledged', 'status', 'transactionId']);
    expect(result).toMatchObject({ acknowledged: true, status: 'processed', transactionId: expect.any(String) });
    const transactionId = result.transactionId!;
    // The trigger wrote page jobs, not a list of subscribers.
    const pages = (await tidings.pending({ transactionId })).jobs;
    expect(pages).toHaveLength(3);
    expect(await reached(transactionId)).toEqual(everyone);
    expect((await tidings.messages.feed('sub-04')).items[0]).toMatchObject({ content: 'Hi sub-04: maintenance at 2am', transactionId });
    const explained = await fetch(`${served.url}/v1/notifications/${transactionId}/explain`, { headers: { authorization: `ApiKey ${KEY}` } });
    const records = ((await explained.json()) as { data: { transactionId: string; subscriberId: string }[] }).data;
    expect(new Set(records.map((r) => r.transactionId))).toEqual(new Set([transactionId]));
    expect(new Set(records.map((r) => r.subscriberId)).size).toBe(everyone.length);
  });

  it('@novu/node broadcast: 201 with the given transactionId, tenant and actor created as a trigger creates them', async () => {
    const response = await legacy.broadcast('announcement', { payload: { text: 'hello' }, transactionId: 'tx-node', tenant: { identifier: 'acme', name: 'Acme' } });
    expect(response.status).toBe(201);
    expect(response.data.data).toEqual({ acknowledged: true, status: 'processed', transactionId: 'tx-node' });
    expect(await reached('tx-node')).toEqual(everyone);
    expect(await tidings.tenants.get('acme')).toMatchObject({ name: 'Acme' });
  });

  it('refusals answer as a single trigger does: an unknown workflow and an invalid member are 422s the SDKs throw; a reused transactionId and an inactive workflow are 201 results', async () => {
    await expect(novu.triggerBroadcast({ name: 'no-such-workflow', payload: {} })).rejects.toSatisfy((e) => e instanceof ValidationErrorDto && e.statusCode === 422 && e.message.includes('workflow_not_found'));
    await expect(legacy.broadcast('no-such-workflow', { payload: {} })).rejects.toMatchObject({ response: { status: 422, data: { message: 'workflow_not_found' } } });
    const named = await http('/v1/events/trigger/broadcast', { name: 'announcement', to: 'sub-01', payload: {} });
    expect(named).toMatchObject({ status: 422, body: { statusCode: 422, errors: { to: { messages: [expect.stringContaining('every subscriber')] } } } });
    await novu.triggerBroadcast({ name: 'announcement', payload: { text: 'once' }, transactionId: 'tx-once' });
    const again = await novu.triggerBroadcast({ name: 'announcement', payload: { text: 'twice' }, transactionId: 'tx-once' });
    expect(again.result).toEqual({ acknowledged: true, status: 'error', error: ['duplicate_transaction_id'], transactionId: 'tx-once' });
    expect((await novu.triggerBroadcast({ name: 'paused', payload: {} })).result).toMatchObject({ acknowledged: true, status: 'trigger_not_active' });
    expect(await reached('tx-once')).toEqual(everyone);
    expect(new Set((await tidings.messages.byTransaction('tx-once')).map((m) => String(m.content).split(': ')[1]))).toEqual(new Set(['once']));
  });

  it('@novu/api cancel of a broadcast whose pages have not run: true, and nobody gets it', async () => {
    const { result } = await novu.triggerBroadcast({ name: 'announcement', payload: { text: 'called off' } });
    expect((await tidings.pending({ transactionId: result.transactionId! })).jobs).toHaveLength(3);
    expect((await novu.cancel(result.transactionId!)).result).toBe(true);
    expect(await reached(result.transactionId!)).toEqual([]);
  });

  it('/openapi.json describes the route: a trigger event without `to`', async () => {
    const doc = (await (await fetch(`${served.url}/openapi.json`)).json()) as any;
    const properties = doc.paths['/v1/events/trigger/broadcast'].post.requestBody.content['application/json'].schema.properties;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['name', 'payload', 'overrides', 'transactionId', 'actor', 'tenant']));
    expect(properties.to).toBeUndefined();
  });

  it('an idempotency key replays the first answer: one broadcast, one transactionId', async () => {
    const first = await http('/v1/events/trigger/broadcast', { name: 'announcement', payload: { text: 'keyed' } }, { 'idempotency-key': 'broadcast-key-1' });
    const replay = await http('/v1/events/trigger/broadcast', { name: 'announcement', payload: { text: 'keyed' } }, { 'idempotency-key': 'broadcast-key-1' });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replay')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await reached(first.body.data.transactionId)).toEqual(everyone);
  });
});
