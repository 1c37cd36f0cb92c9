/**
 * Novu v2 workflows with `http_request`, `throttle` and `custom` steps through `/v2/workflows`: each
 * maps onto Tidings' http, throttle and custom steps (shown back as Novu's controls), a workflow made
 * this way runs (the http step against a local server, its answer in a later step's skip and body,
 * the custom step's values as `steps.<stepId>.*`), and what cannot map is a 422 naming the field.
 */
import { createServer } from 'node:http';
import { WorkflowResponseDto$inboundSchema } from '@novu/api/models/components';
import type { AddressInfo } from 'node:net';
import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { httpStepTransport } from '@tidings/providers';
import { afterEach, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';

const KEY = 'key-flow';
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup() {
  const calls: { url: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      calls.push({ url: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ plan: 'pro', name: 'Ada Lovelace' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), httpStepTransport: httpStepTransport({ network: { allow: ['127.0.0.1'] } }) });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [KEY] }] });
  const request = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(path, { method, headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { tidings, request, base, calls };
}

const steps = (base: string) => [
  {
    name: 'Fetch account',
    stepId: 'fetch',
    type: 'http_request',
    controlValues: {
      method: 'POST',
      url: `${base}/accounts/{{payload.accountId}}`,
      headers: [{ key: 'Authorization', value: 'Bearer {{payload.token}}' }],
      body: [{ key: 'subscriber', value: '{{subscriber.subscriberId}}' }],
      responseBodySchema: { type: 'object', properties: { plan: { type: 'string' }, name: { type: 'string' } }, required: ['plan'] },
      enforceSchemaValidation: true,
      continueOnFailure: false,
      timeout: 5000,
    },
  },
  { name: 'Limit', stepId: 'limit', type: 'throttle', controlValues: { type: 'fixed', amount: 1, unit: 'hours', threshold: 1, throttleKey: '{{payload.accountId}}' } },
  { name: 'Texts', stepId: 'texts', type: 'custom', controlValues: { custom: { greeting: 'Hello {{subscriber.subscriberId}}' } } },
  {
    name: 'Pro note',
    stepId: 'pro-note',
    type: 'in_app',
    controlValues: { body: '{{steps.texts.greeting}}, {{steps.fetch.name}} on {{steps.fetch.plan}}', skip: { '!=': [{ var: 'steps.fetch.plan' }, 'pro'] } },
  },
];

it('Novu v2 — a workflow with http_request, throttle and custom steps is created, shown back as Novu controls, and runs', async () => {
  const { tidings, request, base, calls } = await setup();
  const created = await request('POST', '/v2/workflows', { name: 'Account note', workflowId: 'account-note', steps: steps(base) });
  expect(created.status).toBe(201);
  // The SDK's own response model accepts it (its step types are closed: http_request, throttle, custom).
  expect(() => WorkflowResponseDto$inboundSchema.parse(created.body.data)).not.toThrow();
  const shown = created.body.data.steps as { type: string; stepId: string; controlValues: Record<string, unknown> }[];
  expect(shown.map((s) => [s.type, s.stepId])).toEqual([['http_request', 'fetch'], ['throttle', 'limit'], ['custom', 'texts'], ['in_app', 'pro-note']]);
  expect(shown[0]!.controlValues).toEqual({ ...steps(base)[0]!.controlValues });
  expect(shown[1]!.controlValues).toEqual({ type: 'fixed', amount: 1, unit: 'hours', threshold: 1, throttleKey: '{{payload.accountId}}' });
  expect(shown[2]!.controlValues).toEqual({ custom: { greeting: 'Hello {{subscriber.subscriberId}}' } });

  // Saved back unchanged (Novu's update flow: the response's controls as the update's).
  const updated = await request('PUT', '/v2/workflows/account-note', { name: 'Account note', steps: shown.map((s) => ({ _id: (s as { _id?: string })._id, stepId: s.stepId, name: (s as { name?: string }).name, type: s.type, controlValues: s.controlValues })) });
  expect(updated.status).toBe(200);
  expect((updated.body.data.steps as typeof shown).map((s) => s.controlValues)).toEqual(shown.map((s) => s.controlValues));

  const trigger = async () => {
    const answer = await request('POST', '/v1/events/trigger', { name: 'account-note', to: 'ada', payload: { accountId: 'acc-1', token: 't0k' } });
    await tidings.runDue();
    return answer.body.data.transactionId as string;
  };
  const first = await trigger();
  expect(calls).toEqual([{ url: '/accounts/acc-1', body: JSON.stringify({ subscriber: 'ada' }) }]);
  expect((await tidings.messages.byTransaction(first)).map((m) => m.content)).toEqual(['Hello ada, Ada Lovelace on pro']);
  // The throttle counts one run an hour per account: the second run stops there, after its request.
  const second = await trigger();
  expect(await tidings.messages.byTransaction(second)).toEqual([]);
  expect((await tidings.explain(second)).flatMap((r) => r.entries).map((e) => [e.type, e.decision])).toEqual([['http', 'ran'], ['throttle', 'throttled']]);
});

it('Novu v2 — what does not map is a 422 naming the field, and nothing is stored', async () => {
  const { tidings, request, base } = await setup();
  const answer = await request('POST', '/v2/workflows', {
    name: 'Invalid',
    steps: [
      { name: 'Head', type: 'http_request', controlValues: { method: 'HEAD', url: `${base}/x` } },
      { name: 'Schema', type: 'http_request', controlValues: { method: 'GET', url: `${base}/x`, enforceSchemaValidation: true } },
      { name: 'Dynamic', type: 'throttle', controlValues: { type: 'dynamic', dynamicKey: 'payload.window', threshold: 2 } },
      { name: 'Key', type: 'throttle', controlValues: { amount: 1, unit: 'hours', threshold: 2, throttleKey: 'account' } },
      { name: 'Tool', type: 'tool', controlValues: {} },
    ],
  });
  expect(answer.status).toBe(422);
  expect(Object.keys(answer.body.errors).sort()).toEqual([
    'steps[0].controlValues.method',
    'steps[1].controlValues.responseBodySchema',
    'steps[2].controlValues.dynamicKey',
    'steps[2].controlValues.type',
    'steps[3].controlValues.throttleKey',
    'steps[4].type',
  ]);
  expect(answer.body.errors['steps[0].controlValues.method'].messages[0]).toContain('HEAD and OPTIONS are not supported');
  expect(await tidings.workflows.list()).toEqual([]);
});

it('Novu v2 — a Tidings branch step (Novu has none) shows as a custom step the SDK accepts, and an update that names it keeps it', async () => {
  const { tidings, request } = await setup();
  const branch = { branches: [{ name: 'pro', conditions: [{ value: 'AND' as const, children: [{ on: 'payload' as const, field: 'plan', operator: 'EQUAL' as const, value: 'pro' }] }], steps: ['pro'] }], default: [], exit: true };
  await tidings.workflows.upsert({ name: 'Routed', triggers: [{ identifier: 'routed' }], steps: [{ _id: 'route', template: { type: 'branch' }, branch }, { _id: 'pro', template: { type: 'in_app', content: 'pro' } }] });
  const shown = await request('GET', '/v2/workflows/routed');
  expect(shown.status).toBe(200);
  expect(() => WorkflowResponseDto$inboundSchema.parse(shown.body.data)).not.toThrow();
  const [step] = shown.body.data.steps as { _id: string; stepId: string; name: string; type: string; controlValues: Record<string, unknown>; issues?: unknown }[];
  expect(step).toMatchObject({ type: 'custom', controlValues: { custom: { branch: { ...branch, branches: [{ ...branch.branches[0], conditions: [{ isNegated: false, type: 'GROUP', ...branch.branches[0]!.conditions[0] }] }] } } }, issues: { controls: { custom: [expect.objectContaining({ issueType: 'UNSUPPORTED_PROPERTY' })] } } });
  const steps = (shown.body.data.steps as NonNullable<typeof step>[]).map((s) => ({ _id: s._id, stepId: s.stepId, name: s.name, type: s.type, controlValues: s.controlValues }));
  expect((await request('PUT', '/v2/workflows/routed', { name: 'Routed', steps })).status).toBe(200);
  expect((await tidings.workflows.get('routed'))!.steps[0]).toMatchObject({ _id: 'route', template: { type: 'branch' }, branch });
  const changed = await request('PUT', '/v2/workflows/routed', { name: 'Routed', steps: [{ ...steps[0], controlValues: { custom: { branch: { ...branch, exit: false } } } }, steps[1]] });
  expect(changed.status).toBe(422);
  expect(Object.keys(changed.body.errors)).toEqual(['steps[0].controlValues.custom.branch']);
});
