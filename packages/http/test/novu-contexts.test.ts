/**
 * Novu's contexts (2025) over the wire: `@novu/api` 3.19.1's `contexts` namespace (create, retrieve,
 * update, list, delete) and `trigger` with a `context`, against a real `tidings serve`, each answer
 * through the SDK's own parser; and the Inbox's exact-match scoping as `@novu/js` opens a session
 * (`context` and its `contextHash`, the HMAC of the canonical JSON).
 */
import { createHmac } from 'node:crypto';
import { ErrorDto, ValidationErrorDto } from '@novu/api/models/errors';
import { describe, expect, it } from 'vitest';
import { rejection, sdkServer } from './sdk-server.js';

const KEY = 'tid_contexts_key';
const sdk = sdkServer('contexts', KEY);
const hmac = (text: string) => createHmac('sha256', KEY).update(text).digest('hex');

describe('contexts through @novu/api', () => {
  it('create, retrieve, update, list (paged, by id, by search) and delete; a taken key is a 409, a bad type a 422 naming it, an unknown one a 404', async () => {
    const { result: created } = await sdk.novu.contexts.create({ type: 'tenant', id: 'acme', data: { name: 'Acme', plan: 'pro' } });
    expect(created).toMatchObject({ type: 'tenant', id: 'acme', data: { name: 'Acme', plan: 'pro' }, createdAt: expect.any(String), updatedAt: expect.any(String) });
    await sdk.novu.contexts.create({ type: 'tenant', id: 'globex' });
    await sdk.novu.contexts.create({ type: 'app', id: 'acme' });
    expect(((await rejection(sdk.novu.contexts.create({ type: 'tenant', id: 'acme' }))) as ErrorDto).statusCode).toBe(409);
    const bad = await rejection(sdk.novu.contexts.create({ type: 'Not Valid', id: 'x' }));
    expect(bad).toBeInstanceOf(ValidationErrorDto);
    expect(Object.keys((bad as ValidationErrorDto).errors)).toEqual(['type']);

    const { result: got } = await sdk.novu.contexts.retrieve('acme', 'tenant');
    expect(got.data).toEqual({ name: 'Acme', plan: 'pro' });
    const missing = await rejection(sdk.novu.contexts.retrieve('nobody', 'tenant'));
    expect(missing).toBeInstanceOf(ErrorDto);
    expect((missing as ErrorDto).statusCode).toBe(404);
    const { result: updated } = await sdk.novu.contexts.update({ type: 'tenant', id: 'acme', updateContextRequestDto: { data: { name: 'Acme Inc' } } });
    expect(updated.data).toEqual({ name: 'Acme Inc' });

    const { result: first } = await sdk.novu.contexts.list({ limit: 2 });
    expect(first.data.map((c) => `${c.type}:${c.id}`)).toEqual(['app:acme', 'tenant:acme']);
    expect(first).toMatchObject({ totalCount: 3, totalCountCapped: false, previous: null });
    const { result: second } = await sdk.novu.contexts.list({ limit: 2, after: first.next! });
    expect(second.data.map((c) => `${c.type}:${c.id}`)).toEqual(['tenant:globex']);
    expect(second.next).toBeNull();
    expect((await sdk.novu.contexts.list({ id: 'acme' })).result.data.map((c) => c.type)).toEqual(['app', 'tenant']);
    expect((await sdk.novu.contexts.list({ search: 'glob' })).result.data.map((c) => c.id)).toEqual(['globex']);

    await sdk.novu.contexts.delete('globex', 'tenant');
    expect(((await rejection(sdk.novu.contexts.delete('globex', 'tenant'))) as ErrorDto).statusCode).toBe(404);
  });

  it('trigger with a context: data given is stored, templates read context.*, a later trigger naming the id reads the stored data', async () => {
    await sdk.server.tidings.workflows.upsert({ name: 'Comment', triggers: [{ identifier: 'comment' }], steps: [{ template: { type: 'in_app', content: '{{ context.tenant.data.name }} / {{ context.app.id }}' } }] });
    await sdk.novu.trigger({ workflowId: 'comment', to: 'ada', context: { tenant: { id: 'acme', data: { name: 'Acme' } }, app: 'jira' } });
    await sdk.novu.trigger({ workflowId: 'comment', to: 'ada', context: { tenant: 'acme' } });
    await sdk.server.tidings.runDue();
    const { result } = await sdk.novu.contexts.retrieve('acme', 'tenant');
    expect(result.data).toEqual({ name: 'Acme' });
    const feed = (await sdk.server.tidings.messages.feed('ada', { limit: 10 })).items;
    expect(feed.map((m) => [m.content, m.contextKeys]).sort()).toEqual([
      ['Acme / ', ['tenant:acme']],
      ['Acme / jira', ['app:jira', 'tenant:acme']],
    ]);
  });
});

describe('the Inbox scoped by context (as @novu/js opens a session)', () => {
  async function open(context?: Record<string, unknown>, contextHash?: string) {
    const body = { applicationIdentifier: sdk.server.applicationIdentifier, subscriber: { subscriberId: 'ada' }, subscriberHash: hmac('ada'), ...(context && { context }), ...(contextHash && { contextHash }) };
    const response = await fetch(`${sdk.server.url}/v1/inbox/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as { data: { token: string; totalUnreadCount: number; contextKeys?: string[] }; message?: string } };
  }
  const read = async (token: string, path: string) => (await fetch(`${sdk.server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<{ data: { body?: string; count?: number }[] }>;

  it('an Inbox with a context sees exactly its messages and counts; one without sees only messages of none; the contextHash is checked in any member order', async () => {
    const { tidings } = sdk.server;
    await tidings.workflows.upsert({ name: 'Note', triggers: [{ identifier: 'note' }], steps: [{ template: { type: 'in_app', content: '{{ payload.n }}' } }] });
    for (const [n, context] of [['none', undefined], ['acme', { tenant: 'acme' }], ['acme+jira', { tenant: 'acme', app: 'jira' }], ['globex', { tenant: 'globex' }]] as const) {
      await tidings.trigger({ name: 'note', to: 'ada', payload: { n }, ...(context && { context }) });
    }
    await tidings.runDue();

    const context = { tenant: 'acme', app: 'jira' };
    // The hash of the canonical JSON: the same whatever order the members were written in.
    const scoped = await open(context, hmac('{"app":"jira","tenant":"acme"}'));
    expect(scoped.status).toBe(201);
    expect(scoped.body.data).toMatchObject({ totalUnreadCount: 1, contextKeys: ['app:jira', 'tenant:acme'] });
    expect((await read(scoped.body.data.token, '/v1/inbox/notifications')).data.map((n) => n.body)).toEqual(['acme+jira']);
    expect((await read(scoped.body.data.token, `/v1/inbox/notifications/count?filters=${encodeURIComponent('[{"read":false}]')}`)).data[0]!.count).toBe(1);

    const plain = await open();
    expect(plain.body.data.totalUnreadCount).toBe(1);
    expect((await read(plain.body.data.token, '/v1/inbox/notifications')).data.map((n) => n.body)).toEqual(['none']);

    // Marking all read in one context leaves the others unread.
    const acme = await open({ tenant: 'acme' }, hmac('{"tenant":"acme"}'));
    await fetch(`${sdk.server.url}/v1/inbox/notifications/read`, { method: 'POST', headers: { authorization: `Bearer ${acme.body.data.token}`, 'content-type': 'application/json' }, body: '{}' });
    expect((await tidings.messages.feed('ada', { limit: 10, read: false })).items.map((m) => m.content)).toEqual(['globex', 'acme+jira', 'none']);

    const forged = await open({ tenant: 'globex' }, hmac('{"tenant":"acme"}'));
    expect(forged.status).toBe(400);
    expect(forged.body.message).toMatch(/contextHash/);
    expect((await open({ tenant: 'globex' })).status).toBe(400);
    const invalid = await open({ Tenant: 'acme' }, hmac('{"Tenant":"acme"}'));
    expect(invalid.status).toBe(422);
  });
});
