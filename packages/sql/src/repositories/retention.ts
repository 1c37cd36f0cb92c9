import type { Message } from '@tidings/core';
import type { KernelRepositories } from '@tidings/core/internal';
import { chunk } from '../codec.js';
import type { Db, SqlDialect } from '../dialect.js';
import { MESSAGE_SELECT, messageFromRow } from '../message-row.js';
import type { RepoContext } from './context.js';

/** Deletes messages by id (each statement within the parameter limit); core deletes their provider references. */
async function deleteMessages(db: Db, dialect: SqlDialect, env: string, ids: readonly string[]): Promise<void> {
  for (const part of chunk([...ids], 1, dialect.maxParams - 1)) await db.deleteFrom('tidings_messages').where('env', '=', env).where('id', 'in', part).execute();
}

/**
 * The sweeper's deletes. Each reads at most `limit` rows by an index in the order it sorts them
 * (`tidings_messages_expiry`, `tidings_messages_created`, `tidings_notifications_created`), then
 * deletes those rows by key. (The outbox's deliveries are core's, in the record store.)
 */
export function retentionRepositories({ db, dialect, atomic }: RepoContext): Pick<KernelRepositories, 'retention'> {
  const takeMessages = (env: string, limit: number, where: (q: ReturnType<typeof messagesOf>) => ReturnType<typeof messagesOf>) =>
    atomic(async (tx) => {
      const rows = await where(messagesOf(tx, env)).limit(limit).execute();
      const messages: Message[] = rows.map(messageFromRow);
      await deleteMessages(tx, dialect, env, messages.map((m) => m._id));
      return messages;
    });
  return {
    retention: {
      deleteExpiredMessages: (env, now, limit) => takeMessages(env, limit, (q) => q.where('expires_at', 'is not', null).where('expires_at', '<=', now).orderBy('expires_at').orderBy('id')),
      async nextExpiry(env) {
        const row = await db.selectFrom('tidings_messages').select('expires_at').where('env', '=', env).where('expires_at', 'is not', null).orderBy('expires_at').limit(1).executeTakeFirst();
        return row?.expires_at ?? null;
      },
      deleteMessagesBefore: (env, before, limit) => takeMessages(env, limit, (q) => q.where('created_at', '<', before).orderBy('created_at').orderBy('id')),
      deleteNotificationsBefore: (env, before, limit) =>
        atomic(async (tx) => {
          const rows = await tx
            .selectFrom('tidings_notifications as n')
            .select(['n.id', 'n.transaction_id'])
            .where('n.env', '=', env)
            .where('n.created_at', '<', before)
            // A walk not over keeps its notification: a job of the trigger, or its event in an open digest.
            .where(({ exists, not, selectFrom }) => not(exists(selectFrom('tidings_jobs as j').select('j.id').whereRef('j.env', '=', 'n.env').whereRef('j.transaction_id', '=', 'n.transaction_id'))))
            .where(({ exists, not, selectFrom }) =>
              not(
                exists(
                  selectFrom('tidings_digest_events as e')
                    .innerJoin('tidings_digests as d', (join) => join.onRef('d.env', '=', 'e.env').onRef('d.id', '=', 'e.digest_id'))
                    .select('e.seq')
                    .whereRef('e.env', '=', 'n.env')
                    .whereRef('e.transaction_id', '=', 'n.transaction_id')
                    .where('d.status', '=', 'open'),
                ),
              ),
            )
            .orderBy('n.created_at')
            .orderBy('n.id')
            .limit(limit)
            .execute();
          const transactionIds = rows.map((r) => r.transaction_id);
          for (const part of chunk(rows.map((r) => r.id), 1, dialect.maxParams - 1)) await tx.deleteFrom('tidings_notifications').where('env', '=', env).where('id', 'in', part).execute();
          for (const part of chunk(transactionIds, 1, dialect.maxParams - 1)) {
            await tx.deleteFrom('tidings_traces').where('env', '=', env).where('transaction_id', 'in', part).execute();
            await deleteOwnedDigests(tx, dialect, env, part);
          }
          return transactionIds;
        }),
    },
  };
}

const messagesOf = (db: Db, env: string) => db.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env);

/** Deletes the closed digests whose first event is one of these triggers', with all their events. */
async function deleteOwnedDigests(tx: Db, dialect: SqlDialect, env: string, transactionIds: readonly string[]): Promise<void> {
  const joined = (await tx.selectFrom('tidings_digest_events').select('digest_id').distinct().where('env', '=', env).where('transaction_id', 'in', transactionIds).execute()).map((r) => r.digest_id);
  const owned = new Set(transactionIds);
  for (const part of chunk(joined, 1, dialect.maxParams - 2)) {
    const closed = (await tx.selectFrom('tidings_digests').select('id').where('env', '=', env).where('id', 'in', part).where('status', '=', 'closed').execute()).map((r) => r.id);
    if (closed.length === 0) continue;
    const firsts = await tx.selectFrom('tidings_digest_events').select((eb) => eb.fn.min('seq').as('seq')).where('env', '=', env).where('digest_id', 'in', closed).groupBy('digest_id').execute();
    const firstEvents = await tx.selectFrom('tidings_digest_events').select(['digest_id', 'transaction_id']).where('seq', 'in', firsts.map((r) => Number(r.seq))).execute();
    const doomed = firstEvents.filter((e) => owned.has(e.transaction_id)).map((e) => e.digest_id);
    if (doomed.length === 0) continue;
    await tx.deleteFrom('tidings_digest_events').where('env', '=', env).where('digest_id', 'in', doomed).execute();
    await tx.deleteFrom('tidings_digests').where('env', '=', env).where('id', 'in', doomed).execute();
  }
}
