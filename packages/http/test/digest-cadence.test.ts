/**
 * Digest cadence as a subscriber preference over HTTP: the choice set through Novu's preference
 * routes (`digest` is Tidings' extension field), a trigger then digested by it on the manual clock,
 * and Novu's own SDKs (`@novu/api`, `@novu/js`) still accepting the preference answers that carry it.
 */
import { createHmac } from 'node:crypto';
import { Novu } from '@novu/api';
import { Novu as NovuInbox } from '@novu/js';
import { createTidings, type FieldIssue, type Step, type WorkflowInput } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { controlValuesOf, stepFromNovu } from '../src/novu-v2/workflow-mapping.js';
import type { StepUpsert } from '../src/novu-v2/workflow-schemas.js';
import { listen } from './helpers.js';

const KEY = 'key-cadence';
const APP = 'app-cadence';
const clock = manualClock('2026-06-01T12:00:00.000Z');
const tidings = createTidings({ storage: memoryStorage(), clock, environmentId: 'env-cadence' });
const app = createHttpApp({ environments: [{ tidings, apiKeys: [KEY], applicationIdentifier: APP }] });
let server: Awaited<ReturnType<typeof listen>>;

const request = async (method: string, path: string, body?: unknown, auth = `ApiKey ${KEY}`) => {
  const response = await app.request(path, { method, headers: { authorization: auth, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: response.status, body: (await response.json()) as any };
};
const hash = (subscriberId: string) => createHmac('sha256', KEY).update(subscriberId).digest('hex');
async function inboxToken(subscriberId: string): Promise<string> {
  const { body } = await request('POST', '/v1/inbox/session', { applicationIdentifier: APP, subscriber: { subscriberId }, subscriberHash: hash(subscriberId) });
  return body.data.token as string;
}
const feed = async (subscriberId: string) => (await tidings.messages.feed(subscriberId)).items.map((m) => m.content);

const choices = [
  { id: 'instant', cadence: 'instant', label: 'As they happen' },
  { id: 'hourly', cadence: 'hourly' },
  { id: 'daily', cadence: 'daily', atTime: '09:00', label: 'Every morning' },
] as const;
const workflow: WorkflowInput = {
  name: 'Comment digest',
  triggers: [{ identifier: 'comments' }],
  steps: [
    {
      template: { type: 'digest' },
      metadata: { type: 'preference', choices: [...choices], default: 'hourly' },
    },
    { template: { type: 'in_app', content: '{{ step.total_count }} comments' } },
  ],
};

beforeAll(async () => {
  server = await listen(app);
  // Through the JSON workflow route, so the metadata shape is checked as an app would send it.
  expect((await request('POST', '/v1/workflows', workflow)).status).toBe(201);
  expect((await request('POST', '/v1/subscribers', { subscriberId: 'ada', timezone: 'America/New_York' })).status).toBe(201);
});
afterAll(() => server.close());

describe('digest cadence over HTTP', () => {
  it('PATCH /v2/subscribers/:id/preferences sets the choice; a trigger then waits for 09:00 on the subscriber’s clock', async () => {
    const patched = await request('PATCH', '/v2/subscribers/ada/preferences', { workflowId: 'comments', digest: 'daily' });
    expect(patched.status).toBe(200);
    const item = patched.body.data.workflows.find((w: { workflow: { identifier: string } }) => w.workflow.identifier === 'comments');
    expect(item.digest).toEqual({ choice: 'daily', source: 'subscriber', default: 'hourly', choices });

    const refused = await request('PATCH', '/v2/subscribers/ada/preferences', { workflowId: 'comments', digest: 'weekly' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.digest.messages[0]).toContain('"weekly" is not a cadence workflow "comments" offers');
    expect((await request('PATCH', '/v2/subscribers/ada/preferences', { digest: 'daily' })).body.errors).toHaveProperty('digest');

    for (const n of [1, 2]) expect((await request('POST', '/v1/events/trigger', { name: 'comments', to: 'ada', payload: { n } })).status).toBe(201);
    await tidings.runDue();
    // It is 08:00 in New York (EDT, UTC-4): the window closes at 09:00 there.
    expect((await tidings.pending()).digests.map((d) => [d.count, d.dueAt])).toEqual([[2, '2026-06-01T13:00:00.000Z']]);
    clock.set('2026-06-01T12:59:00.000Z');
    await tidings.runDue();
    expect(await feed('ada')).toEqual([]);
    clock.set('2026-06-01T13:00:00.000Z');
    await tidings.runDue();
    expect(await feed('ada')).toEqual(['2 comments']);
    expect((await request('GET', '/v2/subscribers/ada/preferences')).body.data.workflows[0].digest.choice).toBe('daily');
  });

  it('the Inbox routes show and set the choice: PATCH /v1/inbox/preferences/:workflow with digest, then each event goes out on its own', async () => {
    const auth = `Bearer ${await inboxToken('ada')}`;
    const listed = await request('GET', '/v1/inbox/preferences', undefined, auth);
    expect(listed.body.data[1]).toMatchObject({ level: 'template', workflow: { identifier: 'comments' }, digest: { choice: 'daily' } });
    const updated = await request('PATCH', '/v1/inbox/preferences/comments', { digest: 'instant' }, auth);
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ level: 'template', channels: { in_app: true }, digest: { choice: 'instant', source: 'subscriber' } });
    expect((await request('PATCH', '/v1/inbox/preferences/comments', { digest: 'monthly' }, auth)).status).toBe(422);
    const bulk = await request('PATCH', '/v1/inbox/preferences/bulk', { preferences: [{ workflowId: 'comments', in_app: true, digest: 'instant' }] }, auth);
    expect(bulk.body.data[0].digest.choice).toBe('instant');

    await request('POST', '/v1/events/trigger', { name: 'comments', to: 'ada', payload: { n: 3 } });
    await tidings.runDue();
    expect(await feed('ada')).toEqual(['1 comments', '2 comments']);
    expect((await tidings.pending()).digests).toEqual([]);
  });

  it("Novu's SDKs take the preference answers that carry digest: @novu/api update and list, @novu/js list and update", async () => {
    const novu = new Novu({ secretKey: KEY, serverURL: server.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 });
    const { result } = await novu.subscribers.preferences.update({ channels: { inApp: true }, workflowId: 'comments' }, 'ada');
    expect(result.workflows.map((w) => w.workflow.identifier)).toEqual(['comments']);
    const listed = await novu.subscribers.preferences.list({ subscriberId: 'ada' });
    expect(listed.result.workflows[0]!.channels).toEqual({ inApp: true });
    // The SDK keeps the choice: a channel update leaves it alone.
    expect((await tidings.preferences.get('ada')).workflows[0]!.digest!.choice).toBe('instant');

    const inbox = new NovuInbox({ applicationIdentifier: APP, subscriber: { subscriberId: 'ada' }, subscriberHash: hash('ada'), apiUrl: server.url, socketUrl: server.url });
    const preferences = await inbox.preferences.list();
    expect(preferences.error).toBeUndefined();
    const comments = preferences.data!.find((p) => p.workflow?.identifier === 'comments')!;
    const after = await comments.update({ channels: { in_app: false } });
    expect(after.error).toBeUndefined();
    expect(after.data!.channels.in_app).toBe(false);
    expect((await tidings.preferences.get('ada')).workflows[0]!.digest!.choice).toBe('instant');
  });
});

describe('a preference digest in /v2/workflows (Novu’s controls have none)', () => {
  const stored = { _id: 'gather', active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type: 'digest' }, metadata: { type: 'preference', choices: [...choices], default: 'hourly', digestKey: 'postId' } } as Step;
  const update = (controlValues: Record<string, unknown>) => {
    const issues: FieldIssue[] = [];
    const dto = { name: 'Digest', type: 'digest', stepId: 'gather', controlValues } as unknown as StepUpsert;
    return { step: stepFromNovu(dto, controlValues, 'gather', stored, 'steps[0]', issues), issues };
  };

  it('is shown with its key and a warning; an update without a window keeps it, one with amount and unit replaces it', () => {
    const { values, issues } = controlValuesOf(stored);
    expect(values).toMatchObject({ type: 'regular', digestKey: '{{payload.postId}}' });
    expect(Object.keys(issues)).toEqual(['amount']);
    expect(update({ type: 'regular', digestKey: '{{payload.threadId}}' }).step.metadata).toEqual({ type: 'preference', choices: [...choices], default: 'hourly', digestKey: 'threadId' });
    expect(update({ type: 'regular', amount: 5, unit: 'minutes' }).step.metadata).toEqual({ type: 'regular', amount: 5, unit: 'minutes' });
  });
});
