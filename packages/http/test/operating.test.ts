import { describe, expect, it } from 'vitest';
import { listen, setup } from './helpers.js';

describe('API keys over HTTP', () => {
  it('a stored key works with its scope: trigger keys trigger, read keys read, full keys do everything; others get 401 or a 403 that says why', async () => {
    const { a, app, request } = await setup();
    const full = await a.apiKeys.create({ name: 'ops', scope: 'full' });
    const trigger = await a.apiKeys.create({ name: 'deploy', scope: 'trigger' });
    const read = await a.apiKeys.create({ name: 'dashboard', scope: 'read' });
    const server = await listen(app);
    try {
      const call = (method: string, path: string, key: string, body?: unknown) =>
        fetch(`${server.url}${path}`, { method, headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
      const event = { name: 'welcome', to: 'ada' };

      expect((await call('POST', '/v1/events/trigger', trigger.secret, event)).status).toBe(201);
      expect((await call('POST', '/v1/events/trigger/bulk', trigger.secret, { events: [event] })).status).toBe(201);
      const refused = await call('GET', '/v1/subscribers/ada', trigger.secret);
      expect(refused.status).toBe(403);
      expect((await refused.json()) as object).toMatchObject({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('"deploy" has the trigger scope') });
      expect((await call('POST', '/v1/subscribers', trigger.secret, { subscriberId: 'x' })).status).toBe(403);

      expect((await call('GET', '/v1/subscribers/ada', read.secret)).status).toBe(200);
      expect((await call('GET', '/v1/notifications', read.secret)).status).toBe(200);
      // The activity page reads through GET routes: a read key opens it; its retry and cancel buttons need a full key.
      const [run] = ((await (await call('GET', '/v1/notifications', read.secret)).json()) as { data: { transactionId: string }[] }).data;
      expect((await call('GET', `/v1/notifications/${run!.transactionId}/explain`, read.secret)).status).toBe(200);
      expect((await call('GET', '/v1/jobs', read.secret)).status).toBe(200);
      expect((await call('POST', `/v1/notifications/${run!.transactionId}/retry`, read.secret, { subscriberId: 'ada' })).status).toBe(403);
      expect((await call('DELETE', `/v1/events/trigger/${run!.transactionId}`, read.secret)).status).toBe(403);
      const noWrite = await call('POST', '/v1/events/trigger', read.secret, event);
      expect(noWrite.status).toBe(403);
      expect(((await noWrite.json()) as { message: string }).message).toContain('"dashboard" has the read scope');

      expect((await call('POST', '/v1/subscribers', full.secret, { subscriberId: 'bob' })).status).toBe(201);
      expect((await call('GET', '/v1/subscribers/bob', full.secret)).status).toBe(200);

      // The configured key keeps working as before, and a key of another environment reaches nothing here.
      expect((await request('GET', '/v1/subscribers/bob')).status).toBe(200);
      await a.apiKeys.revoke(read.id);
      const revoked = await call('GET', '/v1/subscribers/ada', read.secret);
      expect(revoked.status).toBe(401);
      expect(((await revoked.json()) as { message: string }).message).toContain('API key not found');
      expect((await call('GET', '/v1/subscribers/ada', `${full.secret}x`)).status).toBe(401);
      expect((await call('GET', '/v1/subscribers/ada', 'tdk_nonsense')).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('a rotated key and its successor both work until the old one is retired; changes made with a key are audited under its name', async () => {
    const { a, clock, request } = await setup();
    const old = await a.apiKeys.create({ name: 'deploy' });
    const next = await a.apiKeys.rotate(old.id, { retireOldAt: '2026-06-01T12:30:00Z' });
    for (const key of [old.secret, next.secret]) expect((await request('GET', '/v1/audit', undefined, {}, key)).status).toBe(200);
    clock.advance(31 * 60 * 1000);
    expect((await request('GET', '/v1/audit', undefined, {}, old.secret)).status).toBe(401);

    await request('POST', '/v1/integrations', { providerId: 'sendgrid', channel: 'email', identifier: 'mail', credentials: { apiKey: 'SG.secret' }, active: true }, {}, next.secret);
    await request('POST', '/v1/workflows', { name: 'Bye', triggers: [{ identifier: 'bye' }], steps: [{ template: { type: 'in_app', content: 'Bye' } }] });
    const audit = await request('GET', '/v1/audit?kind=integration', undefined, {}, next.secret);
    expect(audit.status).toBe(200);
    const body = (await audit.json()) as { data: { who: string; fields: string[] }[]; nextCursor: string | null };
    expect(body.data).toMatchObject([{ who: 'key:deploy', action: 'created', fields: expect.arrayContaining(['credentials.apiKey']) }]);
    expect(JSON.stringify(body)).not.toContain('SG.secret');
    expect((await a.workflows.history('bye'))[0]!.by).toBe('api');
    const bad = await request('GET', '/v1/audit?since=yesterday');
    expect(bad.status).toBe(422);
  });
});

describe('erase and export over HTTP', () => {
  it('GET /v1/subscribers/:id/export answers the document; POST /v1/subscribers/:id/erase removes them; DELETE keeps Novu\u2019s meaning', async () => {
    const { a, request } = await setup();
    await request('POST', '/v1/events/trigger', { name: 'welcome', to: { subscriberId: 'ada', firstName: 'Ada', email: 'ada@x.test' } });
    await request('POST', '/v1/events/trigger', { name: 'welcome', to: { subscriberId: 'bob', firstName: 'Bob' } });
    const exported = await request('GET', '/v1/subscribers/ada/export');
    expect(exported.status).toBe(200);
    const doc = ((await exported.json()) as { data: { format: string; subscriber: { subscriberId: string }; messages: unknown[] } }).data;
    expect(doc).toMatchObject({ format: 'tidings.subscriber-export.v1', subscriber: { subscriberId: 'ada' } });
    expect(doc.messages.length).toBe(1);

    const erased = await request('POST', '/v1/subscribers/ada/erase');
    expect(erased.status).toBe(200);
    expect(((await erased.json()) as { data: { messages: number } }).data.messages).toBe(1);
    expect((await request('GET', '/v1/subscribers/ada/export')).status).toBe(404);
    expect((await request('POST', '/v1/subscribers/ada/erase')).status).toBe(404);
    expect((await a.audit.list({ kind: 'subscriber' })).items).toMatchObject([{ action: 'erased', who: 'api' }]);

    const bob = (await a.subscribers.get('bob'))!;
    expect((await request('DELETE', '/v1/subscribers/bob')).status).toBe(200);
    expect((await a.storage.messages.idsMatching('env-a', bob._id, { now: '' })).length).toBe(1);
  });
});
