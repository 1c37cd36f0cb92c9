import type { Digest, DigestEvent, DigestHead, StorageRepositories } from '@tidings/core/internal';
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
      async openHead(env, key) {
        const row = await db.selectFrom('tidings_digests').select(HEAD_COLUMNS).where('env', '=', env).where('key', '=', key).where('status', '=', 'open').executeTakeFirst();
        return row ? headOf(row) : null;
      },
      head: (env, id) => headById(db, env, id),
      async membership(env, key, transactionId) {
        const member = await db.selectFrom('tidings_digest_events').select(['digest_id', 'seq']).where('env', '=', env).where('key', '=', key).where('transaction_id', '=', transactionId).executeTakeFirst();
        if (!member) return null;
        const first = await db.selectFrom('tidings_digest_events').select('seq').where('env', '=', env).where('digest_id', '=', member.digest_id).orderBy('seq').limit(1).executeTakeFirst();
        return { digestId: member.digest_id, first: Number(first?.seq) === Number(member.seq) };
      },
      async insertOpen(env, open, event) {
        const head: Head = { ...open, status: 'open' };
        await db
          .insertInto('tidings_digests')
          .values({ env, id: head.id, key: head.key, status: 'open', subscriber_id: head.subscriberId, due_at: head.dueAt, doc: encodeJson(head), event_count: 1 })
          .execute();
        await addEvent(db, env, open.key, head.id, event);
      },
      async append(env, digestId, key, event, dueAt) {
        await db
          .updateTable('tidings_digests')
          .set((eb) => ({ event_count: eb('event_count', '+', 1), due_at: dueAt }))
          .where('env', '=', env)
          .where('id', '=', digestId)
          .execute();
        await addEvent(db, env, key, digestId, event);
      },
      async lastEvent(env, key) {
        const found = await db.selectFrom('tidings_digest_keys').select(['last_at', 'last_transaction_id', 'previous_at']).where('env', '=', env).where('key', '=', key).executeTakeFirst();
        // Rows from before events were keyed (no transaction id) match no event.
        return found ? { at: found.last_at, transactionId: found.last_transaction_id ?? '', previous: found.previous_at } : null;
      },
      async putLastEvent(env, key, last) {
        const row = { last_at: last.at, last_transaction_id: last.transactionId, previous_at: last.previous };
        await db
          .insertInto('tidings_digest_keys')
          .values({ env, key, ...row })
          .onConflict((oc) => oc.columns(['env', 'key']).doUpdateSet(row))
          .execute();
      },
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
          const deleted: string[] = [];
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
            await tx.deleteFrom('tidings_digest_events').where('seq', '=', member.seq).execute();
            if (events.length === 1) {
              await tx.deleteFrom('tidings_digests').where('env', '=', env).where('id', '=', member.digest_id).execute();
              deleted.push(member.digest_id);
              continue;
            }
            await tx.updateTable('tidings_digests').set({ event_count: events.length - 1 }).where('env', '=', env).where('id', '=', member.digest_id).execute();
            updated.push(await whole(tx, env, (await headById(tx, env, member.digest_id))!));
          }
          return { updated, deleted };
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
      async countOpen(env) {
        const row = await db.selectFrom('tidings_digests').select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).where('env', '=', env).where('status', '=', 'open').executeTakeFirst();
        return Number(row?.n ?? 0);
      },
    },
  };
}
