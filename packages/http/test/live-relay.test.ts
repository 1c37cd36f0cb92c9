/**
 * Live updates across processes on Postgres: two engines on two pools of one database (as two
 * processes would be), an HTTP app on each; a live client of app A hears what engine B delivered.
 */
import { createHmac } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { serve as serveNode } from '@hono/node-server';
import { Novu } from '@novu/js';
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { freshSchemas } from '../../postgres/test/schemas.js';
import { createHttpApp } from '../src/index.js';
import { openSse } from '../../../test-support/sse-client.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const schemaName = freshSchemas(url, 'tidings_relay');

describe.skipIf(!url)('the live relay on Postgres (NOTIFY, ids only)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  async function process_(schema: string, applicationName = 'tidings') {
    const storage = postgresStorage({ connectionString: url!, schema, max: 4, applicationName, onConnectionError: () => undefined });
    const tidings = createTidings({ storage, inlineInApp: true });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['relay-key'], applicationIdentifier: 'app-relay' }] });
    const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
      const s = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const sockets = app.attachInboxSockets(server as unknown as HttpServer);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    closers.push(async () => {
      app.closeLiveStreams();
      await sockets.close();
      (server as unknown as HttpServer).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await storage.close();
    });
    return { tidings, url: `http://127.0.0.1:${port}` };
  }

  // Retried: in the full suite (many files on one Postgres at once) this has hung twice in five runs,
  // never alone under load; not yet explained (suspected: the LISTEN connection waiting for a free
  // database connection past liveReady's bound, so the one notice is missed). See the closing note.
  it('an SSE client and an Inbox socket on process A receive a notification process B delivered, with the counts right', { timeout: 60_000 }, async () => {
    const schema = schemaName();
    const a = await process_(schema);
    const b = await process_(schema);
    await b.tidings.workflows.upsert({ name: 'Hi', triggers: [{ identifier: 'hi' }], severity: 'high', steps: [{ template: { type: 'in_app', content: 'Hi {{ payload.n }}' } }] });
    await b.tidings.subscribers.upsert({ subscriberId: 'ada' });

    // The SSE stream of process A.
    const sse = await openSse(a.url, 'ada', 'relay-key');
    const events = sse.events;
    await expect.poll(() => events.map((e) => e.event)).toContain('counts');

    // An Inbox socket (socket.io) on process A.
    const novu = new Novu({ applicationIdentifier: 'app-relay', subscriber: 'ada', subscriberHash: createHmac('sha256', 'relay-key').update('ada').digest('hex'), apiUrl: a.url, socketUrl: a.url });
    const connected = new Promise<void>((resolve) => novu.on('socket.connect.resolved', () => resolve()));
    const received = new Promise<{ body: string }>((resolve) => novu.on('notifications.notification_received', ({ result }) => resolve(result as never)));
    await novu.notifications.list();
    await connected;

    await b.tidings.trigger({ name: 'hi', to: 'ada', payload: { n: 1 } });
    expect(await received).toMatchObject({ body: 'Hi 1' });
    await expect.poll(() => events.find((e) => e.event === 'message')?.data, { timeout: 15_000 }).toMatchObject({ content: 'Hi 1' });
    await expect.poll(() => sse.last('counts'), { timeout: 15_000 }).toEqual({ total: 1, unread: 1, unseen: 1 });

    // A change made through process B reaches A's stream as an update, with the counts after it.
    const [message] = (await b.tidings.messages.feed('ada')).items;
    await b.tidings.messages.markAs('ada', { messageId: message!._id, markAs: 'read' });
    await expect.poll(() => sse.last('counts'), { timeout: 15_000 }).toEqual({ total: 1, unread: 0, unseen: 0 });
    sse.close();
  });

  it('notices missed while a process’s LISTEN connection was cut: its live clients get the counts again once it is back', { timeout: 30_000 }, async () => {
    const schema = schemaName();
    const applicationName = `tidings-gap-${schema}`;
    const a = await process_(schema, applicationName);
    const b = await process_(schema);
    await b.tidings.workflows.upsert({ name: 'Hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }] });
    await b.tidings.subscribers.upsert({ subscriberId: 'ada' });
    const sse = await openSse(a.url, 'ada', 'relay-key');
    const novu = new Novu({ applicationIdentifier: 'app-relay', subscriber: 'ada', subscriberHash: createHmac('sha256', 'relay-key').update('ada').digest('hex'), apiUrl: a.url, socketUrl: a.url });
    const connected = new Promise<void>((resolve) => novu.on('socket.connect.resolved', () => resolve()));
    const unread: unknown[] = [];
    novu.on('notifications.unread_count_changed', ({ result }) => unread.push(result));
    await novu.notifications.list();
    await connected;
    await expect.poll(() => sse.last('counts')).toEqual({ total: 0, unread: 0, unseen: 0 });

    // Cut every connection of process A (its LISTEN included), and deliver through B while it is away.
    const admin = postgresStorage({ connectionString: url!, schema, max: 1 });
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${applicationName}`.execute(admin.db);
    await b.tidings.trigger({ name: 'hi', to: 'ada' });
    await admin.close();
    // The notice went out while A was not listening; once A listens again, its clients re-read.
    await expect.poll(() => sse.last('counts'), { timeout: 10_000 }).toEqual({ total: 1, unread: 1, unseen: 1 });
    await expect.poll(() => unread.at(-1), { timeout: 10_000 }).toMatchObject({ total: 1 });
    sse.close();
  });
});
