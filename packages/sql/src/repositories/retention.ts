import type { Message } from '@tidings/core';
import type { KernelRepositories } from '@tidings/core/internal';
import { deleteOwnedDigests, DIGEST_RECORDS } from '@tidings/core/internal';
import { sql, type SqlBool } from 'kysely';
import { chunk } from '../codec.js';
import type { Db, SqlDialect } from '../dialect.js';
import { MESSAGE_SELECT, messageFromRow } from '../message-row.js';
import type { RepoContext } from './context.js';
import { recordStore } from './records.js';

/** Deletes messages by id (each statement within the parameter limit); core deletes their provider references. */
async function deleteMessages(db: Db, dialect: SqlDialect, env: string, ids: readonly string[]): Promise<void> {
  for (const part of chunk([...ids], 1, dialect.maxParams - 1)) await db.deleteFrom('tidings_messages').where('env', '=', env).where('id', 'in', part).execute();
}

/**
 * The sweeper's deletes. Each reads at most `limit` rows by an index in the order it sorts them
 * (`tidings_messages_expiry`, `tidings_messages_created`, `tidings_notifications_created`), then
 * deletes those rows by key. (The outbox's deliveries are core's, in the record store, and so are the
 * digests a notification's deletion takes.)
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
                  // Core's digests in the record store (`DIGEST_RECORDS`): an event of the trigger (`i2`)
                  // whose digest (`i1`) has an open head (sorted in the open range).
                  selectFrom('tidings_records as e')
                    .innerJoin('tidings_records as h', (join) => join.onRef('h.env', '=', 'e.env').onRef('h.tbl', '=', 'e.tbl').onRef('h.i1', '=', 'e.i1'))
                    .select('e.key')
                    .whereRef('e.env', '=', 'n.env')
                    .where('e.tbl', '=', DIGEST_RECORDS.table)
                    // The record columns compare in byte order: the notification's column is read in it too.
                    .where(sql<SqlBool>`${sql.ref('e.i2')} = ${sql.ref('n.transaction_id')}${dialect.name === 'postgres' ? sql` collate "C"` : sql``}`)
                    .where('h.sort', '>', DIGEST_RECORDS.openHeads.gt)
                    .where('h.sort', '<', DIGEST_RECORDS.openHeads.lt),
                ),
              ),
            )
            .orderBy('n.created_at')
            .orderBy('n.id')
            .limit(limit)
            .execute();
          const transactionIds = rows.map((r) => r.transaction_id);
          for (const part of chunk(rows.map((r) => r.id), 1, dialect.maxParams - 1)) await tx.deleteFrom('tidings_notifications').where('env', '=', env).where('id', 'in', part).execute();
          for (const part of chunk(transactionIds, 1, dialect.maxParams - 1)) await tx.deleteFrom('tidings_traces').where('env', '=', env).where('transaction_id', 'in', part).execute();
          await deleteOwnedDigests(recordStore({ db: tx, dialect, atomic: (fn) => fn(tx) }), env, transactionIds);
          return transactionIds;
        }),
    },
  };
}

const messagesOf = (db: Db, env: string) => db.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env);
