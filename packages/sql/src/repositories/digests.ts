import type { Digest, DigestEvent, DigestHead, StorageRepositories } from '@tidings/core';
import { decodeJson, encodeJson } from '../codec.js';
import type { Db } from '../dialect.js';
import type { RepoContext } from './context.js';

type Head = Omit<Digest, 'events'>;
type HeadRow = { doc: unknown; event_count: number | string; status: string; due_at: string };

const headOf = (row: HeadRow): DigestHead => {
  // Documents hold no events since migration 0006; status and due time live in their columns.
  const { events: _events, ...head } = decodeJson<Head & { events?: unknown }>(row.doc);
  return { ...head, status: row.status as Digest['status'], dueAt: row.due_at, eventCount: Number(row.event_count) };
};

const HEAD_COLUMNS = ['doc', 'event_count', 'status', 'due_at'] as const;

async function eventsOf(db: Db, env: string, id: string): Promise<DigestEvent[]> {
  const rows = await db.selectFrom('tidings_digest_events').select('doc').where('env', '=', env).where('digest_id', '=', id).orderBy('seq').execute();
  return rows.map((r) => decodeJson<DigestEvent>(r.doc));
}

async function whole(db: Db, env: string, head: DigestHead): Promise<Digest> {
  const { eventCount: _count, ...digest } = head;
  return { ...digest, events: await eventsOf(db, env, head.id) };
}

async function headById(db: Db, env: string, id: string): Promise<DigestHead | null> {
  const row = await db.selectFrom('tidings_digests').select(HEAD_COLUMNS).where('env', '=', env).where('id', '=', id).executeTakeFirst();
  return row ? headOf(row) : null;
}

export function digestRepositories({ db, atomic }: RepoContext): Pick<StorageRepositories, 'digests'> {
  const openHeads = async (tx: Db, env: string) =>
    (await tx.selectFrom('tidings_digests').select(HEAD_COLUMNS).where('env', '=', env).where('status', '=', 'open').orderBy('due_at').orderBy('id').execute()).map(headOf);
  const addEvent = (tx: Db, env: string, key: string, digestId: string, event: DigestEvent) =>
    tx.insertInto('tidings_digest_events').values({ env, key, transaction_id: event.transactionId, digest_id: digestId, doc: encodeJson(event) }).execute();
  return {
    digests: {
      join: (env, open, event, moveDueAt) =>
        atomic(async (tx) => {
          const member = await tx
            .selectFrom('tidings_digest_events')
            .select('digest_id')
            .where('env', '=', env)
            .where('key', '=', open.key)
            .where('transaction_id', '=', event.transactionId)
            .executeTakeFirst();
          if (member) {
            const first = await tx.selectFrom('tidings_digest_events').select('transaction_id').where('env', '=', env).where('digest_id', '=', member.digest_id).orderBy('seq').limit(1).executeTakeFirst();
            return { digest: (await headById(tx, env, member.digest_id))!, opened: first?.transaction_id === event.transactionId };
          }
          const found = await tx.selectFrom('tidings_digests').select([...HEAD_COLUMNS, 'id']).where('env', '=', env).where('key', '=', open.key).where('status', '=', 'open').executeTakeFirst();
          if (!found) {
            const head: Head = { ...open, status: 'open' };
            await tx
              .insertInto('tidings_digests')
              .values({ env, id: head.id, key: head.key, status: 'open', subscriber_id: head.subscriberId, due_at: head.dueAt, doc: encodeJson(head), event_count: 1 })
              .execute();
            await addEvent(tx, env, open.key, head.id, event);
            return { digest: { ...head, eventCount: 1 }, opened: true };
          }
          const current = headOf(found);
          const dueAt = moveDueAt !== undefined && moveDueAt > current.dueAt ? moveDueAt : current.dueAt;
          await tx
            .updateTable('tidings_digests')
            .set((eb) => ({ event_count: eb('event_count', '+', 1), due_at: dueAt }))
            .where('env', '=', env)
            .where('id', '=', found.id)
            .execute();
          await addEvent(tx, env, open.key, found.id, event);
          return { digest: { ...current, dueAt, eventCount: current.eventCount + 1 }, opened: false };
        }),
      touch: (env, key, at, transactionId) =>
        atomic(async (tx) => {
          const found = await tx.selectFrom('tidings_digest_keys').select(['last_at', 'last_transaction_id', 'previous_at']).where('env', '=', env).where('key', '=', key).executeTakeFirst();
          if (!found) {
            await tx.insertInto('tidings_digest_keys').values({ env, key, last_at: at, last_transaction_id: transactionId, previous_at: null }).execute();
            return null;
          }
          if (found.last_transaction_id === transactionId) return found.previous_at;
          await tx
            .updateTable('tidings_digest_keys')
            .set({ last_at: at > found.last_at ? at : found.last_at, last_transaction_id: transactionId, previous_at: found.last_at })
            .where('env', '=', env)
            .where('key', '=', key)
            .execute();
          return found.last_at;
        }),
      close: (env, id) =>
        atomic(async (tx) => {
          const head = await headById(tx, env, id);
          if (!head) return null;
          if (head.status === 'open') await tx.updateTable('tidings_digests').set({ status: 'closed' }).where('env', '=', env).where('id', '=', id).execute();
          return whole(tx, env, { ...head, status: 'closed' });
        }),
      async get(env, id) {
        const head = await headById(db, env, id);
        return head ? whole(db, env, head) : null;
      },
      removeTransaction: (env, transactionId) =>
        atomic(async (tx) => {
          const updated: Digest[] = [];
          const removedOwnerOf: string[] = [];
          const members = await tx
            .selectFrom('tidings_digest_events as e')
            .innerJoin('tidings_digests as d', (join) => join.onRef('d.env', '=', 'e.env').onRef('d.id', '=', 'e.digest_id'))
            .select(['e.seq', 'e.digest_id'])
            .where('e.env', '=', env)
            .where('e.transaction_id', '=', transactionId)
            .where('d.status', '=', 'open')
            .execute();
          for (const member of members) {
            const events = await tx.selectFrom('tidings_digest_events').select(['seq', 'transaction_id']).where('env', '=', env).where('digest_id', '=', member.digest_id).orderBy('seq').execute();
            if (Number(events[0]!.seq) === Number(member.seq)) removedOwnerOf.push(member.digest_id);
            await tx.deleteFrom('tidings_digest_events').where('seq', '=', member.seq).execute();
            if (events.length === 1) {
              await tx.deleteFrom('tidings_digests').where('env', '=', env).where('id', '=', member.digest_id).execute();
              continue;
            }
            await tx.updateTable('tidings_digests').set({ event_count: events.length - 1 }).where('env', '=', env).where('id', '=', member.digest_id).execute();
            updated.push(await whole(tx, env, (await headById(tx, env, member.digest_id))!));
          }
          return { updated, removedOwnerOf };
        }),
      async listOpen(env, filter = {}) {
        const out: Digest[] = [];
        for (const head of await openHeads(db, env)) {
          if (filter.subscriberId !== undefined && head.subscriberId !== filter.subscriberId) continue;
          const digest = await whole(db, env, head);
          if (filter.transactionId !== undefined && !digest.events.some((e) => e.transactionId === filter.transactionId)) continue;
          out.push(digest);
        }
        return out;
      },
    },
  };
}
