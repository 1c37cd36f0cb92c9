import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import { expect, it } from 'vitest';
import { messageDocument, subscriberDocument } from '../lib/documents.js';
import { BENCH_WORKFLOW } from '../lib/engine-bulk.js';

// The baselines, floors and the peer compare like with like only if their documents are the engine's.
it("the bench's hand-built documents have the members and the size of what the engine stores", async () => {
  const storage = sqliteStorage({ filename: ':memory:' });
  const tidings = createTidings({ storage, inlineInApp: true });
  await tidings.workflows.upsert(BENCH_WORKFLOW);
  await tidings.trigger({ name: 'bench', to: { subscriberId: 'b-123-0', firstName: 'S123' }, payload: { n: 123 } });
  const stored = {
    message: JSON.parse((await storage.db.selectFrom('tidings_messages').select('doc').executeTakeFirstOrThrow()).doc as string),
    subscriber: JSON.parse((await storage.db.selectFrom('tidings_subscribers').select('doc').executeTakeFirstOrThrow()).doc as string),
  };
  const now = new Date().toISOString();
  const built = {
    message: JSON.parse(messageDocument(stored.message._notificationId, 'b-123-0', 123, now)),
    subscriber: JSON.parse(subscriberDocument('b-123-0', stored.subscriber._id, 123, now)),
  };
  for (const kind of ['message', 'subscriber'] as const) {
    expect(Object.keys(built[kind]).sort()).toEqual(Object.keys(stored[kind]).sort());
    // Ids and instants differ in value, not in length: the same bytes.
    expect(JSON.stringify(built[kind]).length).toBe(JSON.stringify(stored[kind]).length);
  }
  expect(built.message.content).toBe(stored.message.content);
  expect(built.message.payload).toEqual(stored.message.payload);
  await storage.close();
});
