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
 * The sweeper's deletes of messages. Each reads at most `limit` rows by an index in the order it
 * sorts them (`tidings_messages_expiry`, `tidings_messages_created`), then deletes those rows by key.
 */
export function retentionRepositories({ db, dialect, atomic }: RepoContext): Pick<KernelRepositories, 'retention'> {
  return {
    retention: {
      deleteMessages: (env, sweep, limit) =>
        atomic(async (tx) => {
          const q = tx.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env);
          const swept = 'expiredAt' in sweep ? q.where('expires_at', 'is not', null).where('expires_at', '<=', sweep.expiredAt).orderBy('expires_at') : q.where('created_at', '<', sweep.createdBefore).orderBy('created_at');
          const messages: Message[] = (await swept.orderBy('id').limit(limit).execute()).map(messageFromRow);
          await deleteMessages(tx, dialect, env, messages.map((m) => m._id));
          return messages;
        }),
      async nextExpiry(env) {
        const row = await db.selectFrom('tidings_messages').select('expires_at').where('env', '=', env).where('expires_at', 'is not', null).orderBy('expires_at').limit(1).executeTakeFirst();
        return row?.expires_at ?? null;
      },
    },
  };
}
