/**
 * What the framework tests share: the backends each suite runs on, and an engine on a fresh storage
 * with a capturing provider on every channel but in-app, a manual clock, and the subscribers named.
 */
import { createTidings, manualClock, type Channel, type CodeWorkflow, type Provider, type Storage, type SubscriberInput } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { afterEach } from 'vitest';
import { freshSchemas } from '../../postgres/test/schemas.js';

export interface Backend {
  name: string;
  create: () => Storage;
  skip?: boolean;
}

/** Memory, SQLite in memory, and Postgres (a fresh schema per engine, prefixed `schemaPrefix`) when `TIDINGS_TEST_PG_URL` is set. */
export function backends(schemaPrefix: string): Backend[] {
  const url = process.env['TIDINGS_TEST_PG_URL'];
  const schemaName = freshSchemas(url, schemaPrefix);
  return [
    { name: 'memory', create: () => memoryStorage() },
    { name: 'sqlite', create: () => sqliteStorage({ filename: ':memory:' }) },
    { name: 'postgres', create: () => postgresStorage({ connectionString: url ?? '', schema: schemaName() }), skip: !url },
  ];
}

export interface Sent {
  channel: Channel;
  to: string;
  subject?: string;
  content: string;
}

/** A provider that keeps what it was asked to send, on every channel but in-app. */
export function capture(): { sent: Sent[]; providers: Provider[] } {
  const sent: Sent[] = [];
  const providers: Provider[] = (['email', 'sms', 'chat', 'push'] as const).map((channel) => ({
    id: 'capture',
    channel,
    async send(message) {
      sent.push({ channel, to: message.to.email ?? message.to.phone ?? message.to.subscriberId, ...(message.subject !== undefined && { subject: message.subject }), content: String(message.content) });
      return { id: message.messageId };
    },
  }));
  return { sent, providers };
}

const ADA: SubscriberInput = { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com', phone: '+15550100' };

/**
 * Makes engines on `backend` (call it inside the backend's `describe`: each engine's storage is closed
 * after its test). An engine starts at 2026-03-02 10:00 UTC; `drain` runs due jobs until none is left.
 */
export function engines(backend: Backend) {
  const open: Storage[] = [];
  afterEach(async () => {
    for (const storage of open.splice(0)) await storage.close();
  });
  return async (workflows: readonly CodeWorkflow[], subscribers: readonly SubscriberInput[] = [ADA]) => {
    const storage = backend.create();
    open.push(storage);
    const clock = manualClock('2026-03-02T10:00:00Z');
    const { sent, providers } = capture();
    const tidings = createTidings({ storage, clock, workflows: [...workflows], providers });
    for (const channel of ['email', 'sms', 'chat', 'push'] as const) await tidings.integrations.upsert({ providerId: 'capture', channel, credentials: {}, primary: true, active: true });
    for (const subscriber of subscribers) await tidings.subscribers.upsert(subscriber);
    const drain = async () => {
      while ((await tidings.runDue()) > 0);
    };
    return { tidings, clock, sent, drain };
  };
}
