/**
 * `@novu/api` 3.19.1's `subscribers.notifications` (Novu 3.x's server copies of the Inbox's routes,
 * `/v2/subscribers/:subscriberId/notifications`) against a real `tidings serve`, each answer through
 * the SDK's own parser: list and count (with `contextKeys`), the per-notification changes and the
 * bulk ones.
 */
import { ErrorDto } from '@novu/api/models/errors';
import { beforeEach, describe, expect, it } from 'vitest';
import { rejection, sdkServer } from './sdk-server.js';

const sdk = sdkServer('v2-notifications', 'tid_v2_notifications_key');

describe('subscribers.notifications through @novu/api', () => {
  beforeEach(async () => {
    const { tidings } = sdk.server;
    await tidings.workflows.upsert({
      name: 'Note',
      triggers: [{ identifier: 'note' }],
      tags: ['team'],
      steps: [{ template: { type: 'in_app', subject: 'Note', content: '{{ payload.n }}', cta: { action: { buttons: [{ type: 'primary', content: 'Open' }] } } } }],
    });
    for (const [n, context] of [['one', undefined], ['two', undefined], ['acme', { tenant: 'acme' }]] as const) {
      await tidings.trigger({ name: 'note', to: 'ada', payload: { n }, ...(context && { context }) });
    }
    await tidings.runDue();
  });
  const bodies = async (contextKeys?: string[]) => (await sdk.novu.subscribers.notifications.list({ subscriberId: 'ada', limit: 10, ...(contextKeys && { contextKeys }) })).result.data.map((n) => n.body).sort();
  const idOf = async (body: string) => (await sdk.server.tidings.messages.feed('ada', { limit: 10 })).items.find((m) => m.content === body)!._id;

  it('list and count: every message, or exactly a context’s (one empty key: those of none); an unknown subscriber is a 404', async () => {
    expect(await bodies()).toEqual(['acme', 'one', 'two']);
    expect(await bodies(['tenant:acme'])).toEqual(['acme']);
    expect(await bodies([''])).toEqual(['one', 'two']);
    const { result: counts } = await sdk.novu.subscribers.notifications.count('ada', JSON.stringify([{ read: false }, { tags: ['team'] }, { tags: ['other'] }]));
    expect(counts.map((c) => c.count)).toEqual([3, 3, 0]);
    const missing = await rejection(sdk.novu.subscribers.notifications.list({ subscriberId: 'nobody' }));
    expect(missing).toBeInstanceOf(ErrorDto);
    expect((missing as ErrorDto).statusCode).toBe(404);
  });

  it('read, unread, archive, unarchive, snooze, unsnooze, complete and revert an action, delete: each stored, each answer parsed', async () => {
    const notifications = sdk.novu.subscribers.notifications;
    const { tidings } = sdk.server;
    const id = await idOf('one');
    expect((await notifications.markAsRead({ subscriberId: 'ada', notificationId: id })).result).toMatchObject({ id, isRead: true });
    expect((await notifications.markAsUnread({ subscriberId: 'ada', notificationId: id })).result.isRead).toBe(false);
    expect((await notifications.archive({ subscriberId: 'ada', notificationId: id })).result.isArchived).toBe(true);
    expect((await notifications.unarchive({ subscriberId: 'ada', notificationId: id })).result.isArchived).toBe(false);
    const until = new Date(Date.now() + 3_600_000);
    expect((await notifications.snooze({ subscriberId: 'ada', notificationId: id, snoozeSubscriberNotificationDto: { snoozeUntil: until } })).result.isSnoozed).toBe(true);
    expect((await notifications.unsnooze({ subscriberId: 'ada', notificationId: id })).result.isSnoozed).toBe(false);
    expect((await notifications.completeAction({ subscriberId: 'ada', notificationId: id, actionType: 'primary' })).result.primaryAction).toMatchObject({ isCompleted: true });
    expect((await notifications.revertAction({ subscriberId: 'ada', notificationId: id, actionType: 'primary' })).result.primaryAction).toMatchObject({ isCompleted: false });
    expect((await tidings.messages.feed('ada', { limit: 10 })).items.find((m) => m._id === id)).toMatchObject({ read: false, archived: false, cta: { action: { status: 'pending' } } });
    await notifications.delete({ subscriberId: 'ada', notificationId: id });
    expect(await bodies()).toEqual(['acme', 'two']);
  });

  it('markAsSeen, markAllAsRead, archiveAllRead, archiveAll and deleteAll: the whole feed, or one context’s', async () => {
    const notifications = sdk.novu.subscribers.notifications;
    const { tidings } = sdk.server;
    const flags = async () => (await tidings.messages.feed('ada', { limit: 10 })).items.map((m) => `${m.content}:${m.seen ? 'seen' : '-'}:${m.read ? 'read' : '-'}`).sort();
    await notifications.markAsSeen({ notificationIds: [await idOf('one')] }, 'ada');
    await notifications.markAllAsRead({ contextKeys: ['tenant:acme'] }, 'ada');
    expect(await flags()).toEqual(['acme:seen:read', 'one:seen:-', 'two:-:-']);
    await notifications.archiveAllRead({}, 'ada');
    expect(await bodies()).toEqual(['one', 'two']);
    await notifications.archiveAll({ contextKeys: [''] }, 'ada');
    expect(await bodies()).toEqual([]);
    await notifications.deleteAll({}, 'ada');
    expect((await tidings.messages.feed('ada', { limit: 10, archived: true })).items).toEqual([]);
  });
});
