import type { Digest, StorageRepositories } from '@tidings/core';
import { decodeJson, encodeJson } from '../codec.js';
import type { Db } from '../dialect.js';
import type { RepoContext } from './context.js';

const row = (env: string, d: Digest) => ({ env, id: d.id, key: d.key, status: d.status, subscriber_id: d.subscriberId, due_at: d.dueAt, doc: encodeJson(d) });

async function save(db: Db, env: string, digest: Digest): Promise<void> {
  const { env: _e, id: _i, ...changes } = row(env, digest);
  await db.insertInto('tidings_digests').values(row(env, digest)).onConflict((oc) => oc.columns(['env', 'id']).doUpdateSet(changes)).execute();
}

export function digestRepositories({ db, atomic }: RepoContext): Pick<StorageRepositories, 'digests'> {
  const openDigests = async (tx: Db, env: string) =>
    (await tx.selectFrom('tidings_digests').select('doc').where('env', '=', env).where('status', '=', 'open').orderBy('due_at').orderBy('id').execute()).map((r) => decodeJson<Digest>(r.doc));
  return {
    digests: {
      join: (env, open, event, moveDueAt) =>
        atomic(async (tx) => {
          const found = await tx.selectFrom('tidings_digests').select('doc').where('env', '=', env).where('key', '=', open.key).where('status', '=', 'open').executeTakeFirst();
          if (!found) {
            const digest: Digest = { ...open, status: 'open', events: [event] };
            await save(tx, env, digest);
            return { digest, opened: true };
          }
          const current = decodeJson<Digest>(found.doc);
          const digest: Digest = { ...current, events: [...current.events, event], ...(moveDueAt !== undefined && { dueAt: moveDueAt }) };
          await save(tx, env, digest);
          return { digest, opened: false };
        }),
      touch: (env, key, at) =>
        atomic(async (tx) => {
          const found = await tx.selectFrom('tidings_digest_keys').select('last_at').where('env', '=', env).where('key', '=', key).executeTakeFirst();
          if (!found) await tx.insertInto('tidings_digest_keys').values({ env, key, last_at: at }).execute();
          else if (at > found.last_at) await tx.updateTable('tidings_digest_keys').set({ last_at: at }).where('env', '=', env).where('key', '=', key).execute();
          return found?.last_at ?? null;
        }),
      close: (env, id) =>
        atomic(async (tx) => {
          const found = await tx.selectFrom('tidings_digests').select('doc').where('env', '=', env).where('id', '=', id).executeTakeFirst();
          if (!found) return null;
          const digest: Digest = { ...decodeJson<Digest>(found.doc), status: 'closed' };
          await save(tx, env, digest);
          return digest;
        }),
      async get(env, id) {
        const found = await db.selectFrom('tidings_digests').select('doc').where('env', '=', env).where('id', '=', id).executeTakeFirst();
        return found ? decodeJson<Digest>(found.doc) : null;
      },
      removeTransaction: (env, transactionId) =>
        atomic(async (tx) => {
          const updated: Digest[] = [];
          const removedOwnerOf: string[] = [];
          for (const digest of await openDigests(tx, env)) {
            if (!digest.events.some((e) => e.transactionId === transactionId)) continue;
            if (digest.events[0]!.transactionId === transactionId) removedOwnerOf.push(digest.id);
            const events = digest.events.filter((e) => e.transactionId !== transactionId);
            if (events.length === 0) {
              await tx.deleteFrom('tidings_digests').where('env', '=', env).where('id', '=', digest.id).execute();
              continue;
            }
            const next = { ...digest, events };
            await save(tx, env, next);
            updated.push(next);
          }
          return { updated, removedOwnerOf };
        }),
      async listOpen(env, filter = {}) {
        return (await openDigests(db, env)).filter(
          (d) => (filter.subscriberId === undefined || d.subscriberId === filter.subscriberId) && (filter.transactionId === undefined || d.events.some((e) => e.transactionId === filter.transactionId)),
        );
      },
    },
  };
}
