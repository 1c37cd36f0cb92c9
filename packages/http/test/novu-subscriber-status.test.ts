/**
 * Novu's v1 routes for a subscriber's presence, marking the whole feed and deleting a trigger's
 * messages, through both SDKs against a real `tidings serve`: `@novu/api` 3.19.1's
 * `subscribers.messages.markAll`, `subscribers.properties.updateOnlineFlag` and
 * `messages.deleteByTransactionId` (each answer through its parser), and `@novu/node` 2.6.6's
 * `subscribers.markAllMessagesAs`, `updateOnlineStatus` and `messages.deleteByTransactionId`.
 */
import { ErrorDto } from '@novu/api/models/errors';
import { beforeEach, describe, expect, it } from 'vitest';
import { rejection, sdkServer } from './sdk-server.js';

const sdk = sdkServer('subscriber-status', 'tid_subscriber_status_key');

describe('presence, mark-all and deletion by transaction through Novu’s SDKs', () => {
  let transactionIds: string[] = [];
  beforeEach(async () => {
    const { tidings } = sdk.server;
    await tidings.workflows.upsert({ name: 'Note', triggers: [{ identifier: 'note' }], steps: [{ template: { type: 'in_app', content: '{{ payload.n }}' } }, { template: { type: 'sms', content: 'sms {{ payload.n }}' } }] });
    transactionIds = [];
    for (const n of ['one', 'two', 'three']) transactionIds.push((await tidings.trigger({ name: 'note', to: [{ subscriberId: 'ada', phone: '+15550001' }, 'bob'], payload: { n } })).transactionId!);
    await tidings.runDue();
  });
  const flags = async (subscriberId: string) => (await sdk.server.tidings.messages.feed(subscriberId, { limit: 10 })).items.map((m) => `${m.seen ? 'seen' : '-'}/${m.read ? 'read' : '-'}`);

  it('markAll: read, unread, seen, unseen over the whole feed, answering how many changed; another subscriber’s feed is untouched; a bad markAs is a 422 naming it', async () => {
    expect((await sdk.novu.subscribers.messages.markAll({ markAs: 'read' }, 'ada')).result).toBe(3);
    expect(await flags('ada')).toEqual(['seen/read', 'seen/read', 'seen/read']);
    expect(await flags('bob')).toEqual(['-/-', '-/-', '-/-']);
    expect((await sdk.novu.subscribers.messages.markAll({ markAs: 'read' }, 'ada')).result).toBe(0);
    expect((await sdk.legacy.subscribers.markAllMessagesAs('ada', 'unread' as never, 'default')).data).toEqual({ data: 3 });
    expect(await flags('ada')).toEqual(['seen/-', 'seen/-', 'seen/-']);
    expect((await sdk.novu.subscribers.messages.markAll({ markAs: 'unseen' }, 'ada')).result).toBe(3);
    expect((await sdk.novu.subscribers.messages.markAll({ markAs: 'seen' }, 'bob')).result).toBe(3);
    expect(await flags('bob')).toEqual(['seen/-', 'seen/-', 'seen/-']);
    const bad = await rejection(sdk.novu.subscribers.messages.markAll({ markAs: 'maybe' as never }, 'ada'));
    expect(bad).toBeInstanceOf(Error);
    expect((await sdk.http('POST', '/v1/subscribers/ada/messages/mark-all', { markAs: 'maybe' })).body.errors).toHaveProperty('markAs');
    expect((await sdk.http('POST', '/v1/subscribers/nobody/messages/mark-all', { markAs: 'read' })).status).toBe(404);
  });

  it('updateOnlineFlag / updateOnlineStatus: online, then offline with when they were last online', async () => {
    const { result: online } = await sdk.novu.subscribers.properties.updateOnlineFlag({ isOnline: true }, 'ada');
    expect(online).toMatchObject({ subscriberId: 'ada', isOnline: true });
    await sdk.legacy.subscribers.updateOnlineStatus('ada', false);
    expect(await sdk.server.tidings.subscribers.get('ada')).toMatchObject({ isOnline: false, lastOnlineAt: expect.stringMatching(/^\d{4}-/) });
    const bad = await rejection(sdk.novu.subscribers.properties.updateOnlineFlag({ isOnline: 'yes' as never }, 'ada'));
    expect(bad).toBeInstanceOf(Error);
    expect(((await rejection(sdk.novu.subscribers.properties.updateOnlineFlag({ isOnline: true }, 'nobody'))) as ErrorDto).statusCode).toBe(404);
  });

  it('deleteByTransactionId: every message of the trigger, or of one channel; others stay; a trigger with none left is a 404', async () => {
    const { tidings } = sdk.server;
    const contents = async (subscriberId: string) => (await tidings.activity.subscriberMessages(subscriberId, { limit: 50 })).items.map((m) => m.content).sort();
    await sdk.novu.messages.deleteByTransactionId(transactionIds[0]!, 'sms');
    expect(await contents('ada')).toEqual(['one', 'sms three', 'sms two', 'three', 'two']);
    await sdk.novu.messages.deleteByTransactionId(transactionIds[0]!);
    expect(await contents('ada')).toEqual(['sms three', 'sms two', 'three', 'two']);
    expect(await contents('bob')).toEqual(['sms three', 'sms two', 'three', 'two']);
    await sdk.legacy.messages.deleteByTransactionId(transactionIds[1]!);
    expect(await contents('ada')).toEqual(['sms three', 'three']);
    const gone = await rejection(sdk.novu.messages.deleteByTransactionId(transactionIds[0]!));
    expect(gone).toBeInstanceOf(ErrorDto);
    expect((gone as ErrorDto).statusCode).toBe(404);
    expect(await rejection(sdk.novu.messages.deleteByTransactionId(transactionIds[2]!, 'carrier-pigeon' as never))).toBeInstanceOf(Error);
  });
});
