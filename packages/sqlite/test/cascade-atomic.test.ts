import type { Subscriber } from '@tidings/core';
import { fixtures } from '@tidings/core/testing';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { sqliteStorage } from '../src/index.js';

it('a message’s deletion outside a transaction takes its provider references in the same atomic step: when theirs fails, the message stays', async () => {
  const storage = sqliteStorage({ filename: ':memory:' });
  try {
    const ada = { _id: 'sub-ada', subscriberId: 'ada' };
    const message = fixtures.messageRecord('env-a', ada, { _id: 'm1' });
    await storage.messages.insertMany('env-a', [message]);
    await storage.deliveryStatus.link('env-a', [{ providerId: 'mailer', providerMessageId: 'pm-1', messageId: 'm1', subscriberInternalId: ada._id }]);
    // The references' deletion fails, after the backend deleted the message in the same call.
    await sql`create trigger refs_stay before delete on tidings_records when old.tbl = 'provider-refs' begin select raise(abort, 'refs stay'); end`.execute(storage.db);
    await expect(storage.messages.deleteMany('env-a', ada._id, ['m1'])).rejects.toThrow(/refs stay/);
    await expect(storage.retention.deleteMessagesBefore('env-a', '2999-01-01T00:00:00.000Z', 10)).rejects.toThrow(/refs stay/);
    expect(await storage.messages.getMany('env-a', ada._id, ['m1'])).toHaveLength(1);
    await sql`drop trigger refs_stay`.execute(storage.db);
    expect(await storage.messages.deleteMany('env-a', ada._id, ['m1'])).toBe(1);
    expect(await storage.deliveryStatus.find('env-a', 'mailer', ['pm-1'])).toEqual([]);
  } finally {
    await storage.close();
  }
});

it('a subscriber’s deletion outside a transaction takes its preferences and memberships in the same atomic step: when the memberships’ fails, the subscriber and preferences stay', async () => {
  const storage = sqliteStorage({ filename: ':memory:' });
  try {
    const row = { subscriberId: 'ada', workflowId: null, enabled: false, channels: {}, updatedAt: fixtures.T0 };
    await storage.subscribers.putMany('env-a', [{ _id: 'sub-ada', subscriberId: 'ada', _environmentId: 'env-a', _organizationId: fixtures.ORG, createdAt: fixtures.T0, updatedAt: fixtures.T0 } as Subscriber]);
    await storage.preferences.putMany('env-a', [row]);
    await storage.topics.addMembers('env-a', { key: 'news' } as Parameters<typeof storage.topics.addMembers>[1], [{ _id: 'sub-ada', subscriberId: 'ada' }]);
    // The backend's deletion of the memberships fails, after core deleted the subscriber and the preferences in the same call.
    await sql`create trigger members_stay before delete on tidings_topic_members begin select raise(abort, 'members stay'); end`.execute(storage.db);
    await expect(storage.subscribers.delete('env-a', 'ada')).rejects.toThrow(/members stay/);
    expect(await storage.subscribers.getMany('env-a', ['ada'])).toHaveLength(1);
    expect(await storage.preferences.list('env-a', 'ada')).toEqual([row]);
    await sql`drop trigger members_stay`.execute(storage.db);
    expect(await storage.subscribers.delete('env-a', 'ada')).toBe(true);
    expect(await storage.preferences.list('env-a', 'ada')).toEqual([]);
    expect(await storage.topics.memberIds('env-a', ['news'])).toEqual([]);
  } finally {
    await storage.close();
  }
});
