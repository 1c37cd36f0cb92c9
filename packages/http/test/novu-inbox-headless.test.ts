/**
 * Novu's own headless Inbox client, `@novu/js` 3.19.2 (pinned), unchanged, against a real
 * `tidings serve`: every `/v1/inbox` route it calls, the session's HMAC check, an expired token and
 * another subscriber's notification.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Novu } from '@novu/js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../cli/src/serve.js';
import { issueToken } from '../src/inbox/session.js';

const KEY = 'tid_inbox_key';
const APP = 'app_inbox_test';
const dir = mkdtempSync(join(tmpdir(), 'tidings-inbox-'));
let server: Awaited<ReturnType<typeof serve>>;
const hash = (subscriberId: string, key = KEY) => createHmac('sha256', key).update(subscriberId).digest('hex');
async function sessionToken(subscriberId: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/inbox/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: APP, subscriber: { subscriberId }, subscriberHash: hash(subscriberId) }) });
  return ((await response.json()) as { data: { token: string } }).data.token;
}
const client = (subscriberId: string, subscriberHash = hash(subscriberId)) =>
  new Novu({ applicationIdentifier: APP, subscriber: { subscriberId, firstName: 'Ada', timezone: 'Europe/Paris' }, subscriberHash, apiUrl: server.url, socketUrl: server.url });

beforeAll(async () => {
  server = await serve({ port: 0, db: join(dir, 'inbox.db'), apiKey: KEY, applicationIdentifier: APP, graceMs: 500 });
  const { tidings } = server;
  await tidings.workflows.upsert({
    name: 'Billing',
    triggers: [{ identifier: 'billing' }],
    severity: 'high',
    tags: ['billing'],
    steps: [{ template: { type: 'in_app', content: 'Invoice {{ payload.n }}', data: { kind: 'invoice' }, cta: { data: { url: '/invoices/{{ payload.n }}' }, action: { buttons: [{ type: 'primary', content: 'Pay', url: '/pay' }, { type: 'secondary', content: 'Later' }] } } } }, { template: { type: 'email', subject: 'Invoice', content: 'x' } }],
  });
  await tidings.workflows.upsert({ name: 'Social', triggers: [{ identifier: 'social' }], tags: ['social'], steps: [{ template: { type: 'in_app', content: 'Someone liked your post' } }] });
  await tidings.workflows.upsert({ name: 'Security', triggers: [{ identifier: 'security' }], critical: true, steps: [{ template: { type: 'in_app', content: 'New login' } }] });
  for (const n of [1, 2, 3]) await tidings.trigger({ name: 'billing', to: 'ada', payload: { n } });
  await tidings.trigger({ name: 'social', to: ['ada', 'bob'] });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('@novu/js 3.19.2 (headless) against tidings serve', () => {
  it('session, list with filters, count with filters echoed as sent', async () => {
    const novu = client('ada');
    const list = await novu.notifications.list({ limit: 10 });
    expect(list.error).toBeUndefined();
    // Newest first: the in-app-only walk was stored within its trigger, the billing ones (an email step follows) by the job loop.
    expect(list.data!.notifications.map((n) => n.body).sort()).toEqual(['Invoice 1', 'Invoice 2', 'Invoice 3', 'Someone liked your post']);
    const invoice = list.data!.notifications.find((n) => n.body === 'Invoice 3')!;
    expect(invoice).toMatchObject({ isRead: false, severity: 'high', tags: ['billing'], data: { kind: 'invoice' }, redirect: { url: '/invoices/3' }, primaryAction: { label: 'Pay', isCompleted: false, redirect: { url: '/pay' } }, secondaryAction: { label: 'Later' } });
    expect(invoice.workflow).toMatchObject({ identifier: 'billing', name: 'Billing', severity: 'high', critical: false });
    const billing = await novu.notifications.list({ tags: ['billing'], limit: 2 });
    expect(billing.data!.notifications).toHaveLength(2);
    expect(billing.data!.hasMore).toBe(true);
    const filters = [{ read: false, severity: 'high' as never }, { tags: ['social'] }, { read: false, archived: false, snoozed: false }];
    const counts = await novu.notifications.count({ filters });
    expect(counts.data!.counts).toEqual([
      { count: 3, filter: filters[0] },
      { count: 1, filter: filters[1] },
      { count: 4, filter: filters[2] },
    ]);
  });

  it('read, unread, seen, archive, unarchive, snooze, unsnooze, complete and revert — each stored', async () => {
    const novu = client('ada');
    const [first] = (await novu.notifications.list({ tags: ['billing'], limit: 1 })).data!.notifications;
    const stored = async () => {
      const all = await Promise.all([false, true].map(async (archived) => (await server.tidings.messages.feed('ada', { archived, snoozed: undefined as never, limit: 100 })).items));
      return all.flat().find((m) => m._id === first!.id)!;
    };
    expect((await first!.read()).data).toMatchObject({ isRead: true, isSeen: true });
    expect((await stored()).read).toBe(true);
    expect((await first!.unread()).data).toMatchObject({ isRead: false });
    expect((await first!.seen()).error).toBeUndefined();
    expect((await stored()).seen).toBe(true);
    expect((await first!.archive()).data).toMatchObject({ isArchived: true, isRead: true });
    expect((await stored()).archivedAt).toBeDefined();
    expect((await first!.unarchive()).data).toMatchObject({ isArchived: false, isRead: true });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await first!.snooze(until)).data).toMatchObject({ isSnoozed: true, snoozedUntil: until });
    expect((await first!.unsnooze()).data).toMatchObject({ isSnoozed: false });
    expect((await first!.completePrimary()).data!.primaryAction).toMatchObject({ isCompleted: true });
    expect((await stored()).cta.action).toMatchObject({ status: 'done', result: { type: 'primary' } });
    expect((await first!.revertPrimary()).data!.primaryAction).toMatchObject({ isCompleted: false });
  });

  it('the bulk routes by filter: seenAll, readAll, archiveAllRead, archiveAll, deleteAll, and a single delete', async () => {
    const novu = client('ada');
    const unseenSocial = async () => (await server.tidings.messages.count('ada', [{ seen: false, tags: ['social'] }]))[0]!.count;
    expect(await unseenSocial()).toBe(1);
    expect((await novu.notifications.seenAll({ tags: ['social'] })).error).toBeUndefined();
    expect(await unseenSocial()).toBe(0);
    expect((await novu.notifications.readAll({ data: { kind: 'invoice' } })).error).toBeUndefined();
    expect((await server.tidings.messages.count('ada', [{ read: false }]))[0]!.count).toBe(1);
    expect((await novu.notifications.archiveAllRead()).error).toBeUndefined();
    expect((await server.tidings.messages.count('ada', [{ archived: true }]))[0]!.count).toBe(3);
    expect((await novu.notifications.archiveAll()).error).toBeUndefined();
    expect((await novu.notifications.deleteAll({ tags: ['social'] })).error).toBeUndefined();
    const archived = (await novu.notifications.list({ archived: true, limit: 10 })).data!.notifications;
    expect(archived).toHaveLength(3);
    expect((await archived[0]!.delete()).error).toBeUndefined();
    expect((await server.tidings.messages.count('ada', [{}]))[0]!.count).toBe(2);
  });

  it('preferences: list (global first, then workflows with their own channels), update global, one workflow, in bulk, the schedule', async () => {
    const novu = client('ada');
    const list = await novu.preferences.list();
    expect(list.error).toBeUndefined();
    const [global, ...workflows] = list.data!;
    expect(global).toMatchObject({ level: 'global', enabled: true, channels: { in_app: true, email: true } });
    expect(workflows.map((p) => p.workflow?.identifier).sort()).toEqual(['billing', 'social']);
    const billing = workflows.find((p) => p.workflow?.identifier === 'billing')!;
    expect(billing.channels).toEqual({ in_app: true, email: true });
    expect((await billing.update({ channels: { email: false } })).data!.channels).toEqual({ in_app: true, email: false });
    expect((await server.tidings.preferences.get('ada')).workflows.find((w) => w.workflow.identifier === 'billing')!.channels.email).toBe(false);
    expect((await global!.update({ channels: { in_app: true, email: true } })).error).toBeUndefined();
    const bulk = await novu.preferences.bulkUpdate([{ workflowId: 'social', channels: { in_app: false } }]);
    expect(bulk.data!.map((p) => p.channels)).toEqual([{ in_app: false }]);
    const schedule = { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] } } };
    expect((await novu.preferences.schedule.update(schedule)).error).toBeUndefined();
    expect((await server.tidings.preferences.get('ada')).global.schedule).toEqual(schedule);
    // Turning the schedule off keeps its hours, as the client's switch expects.
    expect((await novu.preferences.schedule.update({ isEnabled: false })).error).toBeUndefined();
    expect((await server.tidings.preferences.get('ada')).global.schedule).toEqual({ ...schedule, isEnabled: false });
    expect((await novu.preferences.schedule.get()).data).toMatchObject({ isEnabled: false });
    const token = await sessionToken('ada');
    const critical = await (await fetch(`${server.url}/v1/inbox/preferences?criticality=critical`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(critical.data.slice(1).map((p: { workflow: { identifier: string; critical: boolean } }) => [p.workflow.identifier, p.workflow.critical])).toEqual([['security', true]]);
    const all = await (await fetch(`${server.url}/v1/inbox/preferences?criticality=all&tags[]=billing`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(all.data.slice(1).map((p: { workflow: { identifier: string } }) => p.workflow.identifier)).toEqual(['billing']);
  });

  it('refuses a wrong hash, an expired token, and another subscriber’s notification', async () => {
    const wrong = await client('ada', hash('ada', 'another-key')).notifications.list();
    expect(wrong.error).toBeDefined();
    const session = await fetch(`${server.url}/v1/inbox/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ applicationIdentifier: APP, subscriber: { subscriberId: 'ada' }, subscriberHash: 'nope' }) });
    expect(session.status).toBe(400);
    const environment = { tidings: server.tidings, applicationIdentifier: APP, apiKey: KEY };
    const expired = issueToken(environment, 'ada', Date.now() - 1);
    const refused = await fetch(`${server.url}/v1/inbox/notifications`, { headers: { authorization: `Bearer ${expired}` } });
    expect(refused.status).toBe(401);
    expect((await refused.json()).message).toMatch(/expired/);
    const forged = `${expired.split('.')[0]}.AAAA`;
    expect((await fetch(`${server.url}/v1/inbox/notifications`, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
    const adaNotification = (await server.tidings.messages.feed('ada', { limit: 1, archived: true })).items[0]!;
    const bob = client('bob');
    const theirs = await bob.notifications.read({ notificationId: adaNotification._id });
    expect(theirs.error).toBeDefined();
    expect((await server.tidings.messages.feed('ada', { limit: 1, archived: true })).items[0]!.read).toBe(adaNotification.read);
  });

  it('live over socket.io: a notification triggered while connected arrives, then the unread count by severity; a change re-counts', async () => {
    const novu = client('carol');
    const connected = new Promise<void>((resolve) => novu.on('socket.connect.resolved', () => resolve()));
    const received = new Promise<{ id: string; body: string; severity: string }>((resolve) => novu.on('notifications.notification_received', ({ result }) => resolve(result as never)));
    const counts: { total: number; severity: Record<string, number> }[] = [];
    novu.on('notifications.unread_count_changed', ({ result }) => counts.push(result as never));
    await novu.notifications.list();
    await connected;
    await server.tidings.trigger({ name: 'billing', to: 'carol', payload: { n: 9 } });
    expect(await received).toMatchObject({ body: 'Invoice 9', severity: 'high' });
    await expect.poll(() => counts.at(-1), { timeout: 15_000 }).toMatchObject({ total: 1, severity: { high: 1, none: 0 } });
    await server.tidings.messages.markAs('carol', { messageId: (await received).id, markAs: 'read' });
    await expect.poll(() => counts.at(-1), { timeout: 15_000 }).toMatchObject({ total: 0 });
  });

  it('live over a plain WebSocket (the client’s cloud mode): the same events as frames, and the token checked on the upgrade', async () => {
    const token = await sessionToken('dave');
    const { WebSocket } = await import('ws');
    const refused = new WebSocket(`${server.url.replace('http', 'ws')}/?token=forged.token`);
    expect(await new Promise((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode)).on('error', () => resolve('error')))).toBe(401);
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/?token=${token}`);
    const frames: { event: string; data: { message?: { content?: string }; counts?: { total: number } } }[] = [];
    socket.on('message', (frame) => {
      const text = frame.toString();
      if (text !== 'pong') frames.push(JSON.parse(text));
    });
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send('ping');
    await server.tidings.trigger({ name: 'social', to: 'dave' });
    await expect.poll(() => frames.map((f) => f.event), { timeout: 15_000 }).toEqual(['notification_received', 'unseen_count_changed', 'unread_count_changed']);
    expect(frames[0]!.data.message!.content).toBe('Someone liked your post');
    expect(frames[2]!.data.counts!.total).toBe(1);
    socket.close();
  });

  it('answers CORS preflights for the headers the browser client sends', async () => {
    const preflight = await fetch(`${server.url}/v1/inbox/notifications`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,content-type,novu-api-version,novu-client-version' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('novu-client-version');
  });
});
