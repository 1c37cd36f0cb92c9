import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { eventually } from '../../http/test/eventually.js';
import { orderDelivered, orderShipped } from './fixtures/code-workflows.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-serve-workflows-'));
afterEach(killSpawned);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('tidings serve --workflows: the module’s workflows run (of @tidings/framework and of @novu/framework), and each one’s workflow.trigger() pointed at the server reaches the feed', async () => {
  const child = spawnTs('packages/cli/src/cli.ts', ['serve', '--port', '0', '--db', join(dir, 't.db'), '--api-key', 'wf-key', '--workflows', 'packages/cli/test/fixtures/code-workflows.ts']);
  await waitForOutput(child, /Application identifier \(Novu's Inbox\): app_\w+.*\n/);
  const url = /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
  const headers = { authorization: 'ApiKey wf-key' };

  const listed = (await (await fetch(`${url}/v1/workflows`, { headers })).json()) as { data: { triggers: { identifier: string }[] }[] };
  expect(listed.data.map((w) => w.triggers[0]?.identifier)).toEqual(expect.arrayContaining(['order-shipped', 'order-delivered']));

  // The trigger as @novu/framework sends it: POST /v1/events/trigger with the secret key.
  const result = await orderShipped.trigger({ to: { subscriberId: 'ada', firstName: 'Ada' }, payload: { orderId: 'A-17' }, secretKey: 'wf-key', apiUrl: url });
  expect(result.data).toMatchObject({ data: { acknowledged: true, status: 'processed' } });
  // A code workflow's in-app step is stored by the trigger: its resolver runs just before the trigger's transaction, never inside it.
  const feedOf = async (subscriberId: string) => {
    const feed = (await (await fetch(`${url}/v1/subscribers/${subscriberId}/notifications/feed`, { headers })).json()) as { data: { content: string; subject?: string; transactionId: string }[] };
    return feed.data.length > 0 ? feed : undefined;
  };
  const feed = await eventually(() => feedOf('ada'), "ada's message");
  expect(feed.data).toMatchObject([{ content: 'Order A-17 shipped', subject: 'Hi Ada' }]);

  // @novu/framework's own trigger, unchanged: its workflow runs through novuWorkflows in the server.
  const delivered = await orderDelivered.trigger({ to: { subscriberId: 'bob', firstName: 'Bob' }, payload: { orderId: 'B-2' }, secretKey: 'wf-key', apiUrl: url });
  // Its result is Novu's response body as it is.
  expect(delivered.data).toMatchObject({ data: { acknowledged: true, status: 'processed' } });
  const bobs = await eventually(() => feedOf('bob'), "bob's message");
  expect(bobs.data).toMatchObject([{ content: 'Order B-2 delivered', subject: 'Hi Bob', transactionId: (delivered.data as unknown as { data: { transactionId: string } }).data.transactionId }]);

  // A payload the workflow's schema refuses is refused before it is sent, naming the field; the
  // server refuses it too (a 422 naming the field).
  await expect(orderShipped.trigger({ to: 'ada', payload: {} as never, secretKey: 'wf-key', apiUrl: url })).rejects.toThrow(/payload was refused: payload\.orderId/);
  const refused = await fetch(`${url}/v1/events/trigger`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'order-delivered', to: 'ada', payload: {} }) });
  expect(refused.status).toBe(422);
  expect(JSON.stringify(await refused.json())).toContain('orderId');
  child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
}, 180_000);

it('tidings serve --workflows with a module that exports no workflow stops with a message naming it', async () => {
  const child = spawnTs('packages/cli/src/cli.ts', ['serve', '--port', '0', '--db', join(dir, 'n.db'), '--workflows', 'packages/cli/test/fixtures/no-workflows.ts']);
  expect(await child.exited).not.toBe(0);
  expect(child.output()).toContain('--workflows packages/cli/test/fixtures/no-workflows.ts: the module exports no workflow');
}, 180_000);
