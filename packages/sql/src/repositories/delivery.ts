import { type DecisionRecord, type Job, type Message, type Notification } from '@tidings/core';
import { feedCursor, type StorageRepositories } from '@tidings/core/internal';
import { chunk, decodeJson, encodeJson } from '../codec.js';
import type { JobRow } from '../dialect.js';
import { docsByKeys } from '../docs-by-keys.js';
import { deleteReturning, updateReturning } from '../returning-write.js';
import { MESSAGE_SELECT, messageFromRow, messageRow } from '../message-row.js';
import { messageCondition, unexpired } from '../message-filter.js';
import { rowInserter } from '../row-inserter.js';
import { decodeTraceDoc, encodeTraceDoc } from '../trace-doc.js';
import type { RepoContext } from './context.js';

type Delivery = Pick<StorageRepositories, 'notifications' | 'jobs' | 'messages' | 'traces'>;

export function jobFromRow(row: JobRow): Job {
  return {
    id: row.id,
    environmentId: row.env,
    kind: row.kind as Job['kind'],
    runAt: row.run_at,
    attempts: Number(row.attempts),
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until,
    transactionId: row.transaction_id,
    subscriberId: row.subscriber_id,
    data: decodeJson<Job['data']>(row.data),
    lastError: row.last_error,
    ...(row.job_key !== null && row.job_key !== undefined && { key: row.job_key }),
  } as Job;
}

const insertNotifications = rowInserter('tidings_notifications', ['env', 'id', 'transaction_id', 'doc', 'created_at'], { skipTaken: true, returning: 'id' });
const JOB_COLUMNS = ['id', 'env', 'kind', 'run_at', 'attempts', 'locked_by', 'locked_until', 'transaction_id', 'subscriber_id', 'data', 'last_error', 'job_key'] as const;
const insertJobs = rowInserter('tidings_jobs', JOB_COLUMNS);
// A keyed job moves the stored job with its key (graphile-worker's replace mode). Only keyed jobs pay
// for the upsert: an insert with ON CONFLICT is slower per row, and most jobs have no key.
const upsertKeyedJobs = rowInserter('tidings_jobs', JOB_COLUMNS, { upsert: { key: ['env', 'job_key'], whereNotNull: 'job_key', update: ['run_at'] } });
const MESSAGE_COLUMNS = ['id', 'env', 'subscriber_internal_id', 'transaction_id', 'channel', 'read', 'seen', 'created_at', 'doc', 'archived', 'snoozed_until', 'tags', 'severity', 'expires_at'] as const;
const insertMessages = rowInserter('tidings_messages', MESSAGE_COLUMNS, { skipTaken: true, returning: 'id' });
const insertTraces = rowInserter('tidings_traces', ['env', 'transaction_id', 'subscriber_id', 'at', 'doc']);

const notificationDocs = docsByKeys('tidings_notifications', 'id');
const renewHeld = updateReturning<{ env: string; ids: readonly string[]; workerId: string; until: string }, 'tidings_jobs', 'id'>(
  'tidings_jobs',
  ({ until }) => ({ locked_until: until }),
  (eb, { env, ids, workerId }) => eb.and([eb('env', '=', env), eb('id', 'in', ids), eb('locked_by', '=', workerId)]),
  ['id'],
);
const deleteClaimed = deleteReturning<{ env: string; ids: readonly string[]; workerId: string }, 'tidings_jobs', 'id'>(
  'tidings_jobs',
  (eb, { env, ids, workerId }) => eb.and([eb('env', '=', env), eb('id', 'in', ids), eb('locked_by', '=', workerId)]),
  ['id'],
);

/**
 * The most messages read by one statement: the driver decodes a result whole, so 20,000 rows at once
 * held the event loop for 0.6 s; a thousand at a time lets other requests in between.
 */
const ROWS_PER_READ = 1_000;

export function deliveryRepositories({ db, dialect }: RepoContext): Delivery {
  const max = dialect.maxParams;
  return {
    notifications: {
      async insertMany(env, notifications) {
        const rows = await insertNotifications(db, dialect, notifications.map((n) => [env, n._id, n.transactionId, encodeJson(n), n.createdAt]));
        const stored = new Set((rows as { id: string }[]).map((row) => row.id));
        return notifications.filter((n) => stored.has(n._id)).map((n) => n._id);
      },
      getMany: (env, ids) => notificationDocs<Notification>(db, dialect, env, ids),
      async getByTransactionId(env, transactionId) {
        const row = await db.selectFrom('tidings_notifications').select('doc').where('env', '=', env).where('transaction_id', '=', transactionId).executeTakeFirst();
        return row ? decodeJson<Notification>(row.doc) : null;
      },
      async list(env, { limit, cursor, createdGte, createdLte }) {
        // Read along the (env, created_at, id) index, newest first.
        let q = db.selectFrom('tidings_notifications').select('doc').where('env', '=', env);
        if (createdGte !== undefined) q = q.where('created_at', '>=', createdGte);
        if (createdLte !== undefined) q = q.where('created_at', '<=', createdLte);
        const after = cursor ? feedCursor.decode(cursor) : null;
        if (after) q = q.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
        const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
        const items = rows.slice(0, limit).map((row) => decodeJson<Notification>(row.doc));
        const last = items[items.length - 1];
        return { items, nextCursor: rows.length > limit && last ? feedCursor.encode(last) : null };
      },
    },
    jobs: {
      async enqueue(env, jobs) {
        if (jobs.length === 0) return;
        const row = (j: Job) => [j.id, env, j.kind, j.runAt, j.attempts, j.lockedBy, j.lockedUntil, j.transactionId, j.subscriberId, encodeJson(j.data), j.lastError, j.key ?? null];
        const keyed = jobs.filter((j) => j.key);
        const plain = keyed.length === 0 ? jobs : jobs.filter((j) => !j.key);
        if (plain.length > 0) await insertJobs(db, dialect, plain.map(row));
        if (keyed.length > 0) await upsertKeyedJobs(db, dialect, keyed.map(row));
        if (dialect.notifyJobs) await dialect.notifyJobs(db, env);
      },
      claimDue: (options) => dialect.claimDue(db, options),
      async renew(env, ids, workerId, lockedUntil) {
        const held: string[] = [];
        for (const part of chunk([...ids], 1, max - 3)) {
          const rows = await renewHeld(db, dialect, { env, ids: part, workerId, until: lockedUntil });
          held.push(...rows.map((row) => row.id));
        }
        return held;
      },
      async hasEarlier(env, subscriberId, before, exceptIds) {
        const except = new Set(exceptIds);
        // The subscriber's earlier jobs are few; the ones to leave out are filtered here, not in SQL.
        const rows = await db
          .selectFrom('tidings_jobs')
          .select('id')
          .where('env', '=', env)
          .where('subscriber_id', '=', subscriberId)
          .where('run_at', '<', before)
          .limit(except.size + 1)
          .execute();
        return rows.some((row) => !except.has(row.id));
      },
      async releaseLeases(env, alive) {
        let query = db.updateTable('tidings_jobs').set({ locked_by: null, locked_until: null }).where('env', '=', env).where('locked_by', 'is not', null);
        if (alive.length > 0) query = query.where('locked_by', 'not in', alive);
        return Number((await query.executeTakeFirst()).numUpdatedRows);
      },
      async complete(env, ids, workerId) {
        const done: string[] = [];
        for (const part of chunk([...ids], 1, max - 2)) done.push(...(await deleteClaimed(db, dialect, { env, ids: part, workerId })).map((row) => row.id));
        return done;
      },
      async reschedule(env, id, workerId, change) {
        const result = await db
          .updateTable('tidings_jobs')
          .set((eb) => ({
            run_at: change.runAt,
            data: encodeJson(change.data),
            last_error: change.lastError,
            locked_by: null,
            locked_until: null,
            attempts: change.resetAttempts ? 0 : eb.ref('attempts'),
          }))
          .where('env', '=', env)
          .where('id', '=', id)
          .where('locked_by', '=', workerId)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) > 0;
      },
      async cancelByTransaction(env, transactionId) {
        const result = await db.deleteFrom('tidings_jobs').where('env', '=', env).where('transaction_id', '=', transactionId).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      async nextDueAt(env) {
        // A job becomes claimable at its run_at, or at its lease end when a lease is still held.
        let query = db.selectFrom('tidings_jobs').select(['run_at', 'locked_until']).orderBy('run_at').limit(1);
        if (env !== undefined) query = query.where('env', '=', env);
        const earliest = await query.where('locked_until', 'is', null).executeTakeFirst();
        let leased = db.selectFrom('tidings_jobs').select(['locked_until']).where('locked_until', 'is not', null).orderBy('locked_until').limit(1);
        if (env !== undefined) leased = leased.where('env', '=', env);
        const lease = await leased.executeTakeFirst();
        const candidates = [earliest?.run_at, lease?.locked_until].filter((x): x is string => typeof x === 'string');
        return candidates.length === 0 ? null : candidates.sort()[0]!;
      },
      async list(env, filter = {}) {
        let query = db.selectFrom('tidings_jobs').selectAll().where('env', '=', env);
        if (filter.transactionId !== undefined) query = query.where('transaction_id', '=', filter.transactionId);
        if (filter.subscriberId !== undefined) query = query.where('subscriber_id', '=', filter.subscriberId);
        return (await query.orderBy('run_at').orderBy('id').execute()).map(jobFromRow);
      },
      async countByKind(env) {
        const rows = await db.selectFrom('tidings_jobs').select(['kind', (eb) => eb.fn.countAll<number | string | bigint>().as('n')]).where('env', '=', env).groupBy('kind').execute();
        return Object.fromEntries(rows.map((row) => [row.kind, Number(row.n)]));
      },
    },
    messages: {
      async insertMany(env, messages) {
        const rows = await insertMessages(db, dialect, messages.map((m) => { const row = messageRow(m); return MESSAGE_COLUMNS.map((column) => (column === 'env' ? env : row[column])); }));
        const inserted = new Set((rows as { id: string }[]).map((row) => row.id));
        return messages.filter((m) => inserted.has(m._id));
      },
      async getMany(env, subscriberInternalId, ids) {
        if (ids.length === 0) return [];
        const found = new Map<string, Message>();
        for (const part of chunk([...new Set(ids)], 1, Math.min(max - 2, ROWS_PER_READ))) {
          const rows = await db.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env).where('subscriber_internal_id', '=', subscriberInternalId).where('id', 'in', part).execute();
          for (const row of rows) {
            const m = messageFromRow(row);
            found.set(m._id, m);
          }
        }
        return ids.flatMap((id) => {
          const m = found.get(id);
          return m ? [m] : [];
        });
      },
      async replaceMany(env, messages) {
        for (const m of messages) {
          const { id, env: _env, ...columns } = messageRow(m);
          await db.updateTable('tidings_messages').set(columns).where('id', '=', id).where('env', '=', env).execute();
        }
      },
      async feed(env, subscriberInternalId, query) {
        let q = db
          .selectFrom('tidings_messages')
          .select(MESSAGE_SELECT)
          .where('env', '=', env)
          .where('subscriber_internal_id', '=', subscriberInternalId)
          .where((eb) => messageCondition(eb, query, dialect));
        const after = query.cursor ? feedCursor.decode(query.cursor) : null;
        if (after) {
          q = q.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
        }
        q = q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit + 1);
        if (query.offset) q = q.offset(query.offset);
        const rows = await q.execute();
        const items = rows.slice(0, query.limit).map(messageFromRow);
        const last = items[items.length - 1];
        return { items, nextCursor: rows.length > query.limit && last ? feedCursor.encode(last) : null };
      },
      async countMatching(env, subscriberInternalId, filters) {
        const counts: number[] = [];
        for (const filter of filters) {
          const row = await db
            .selectFrom('tidings_messages')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('env', '=', env)
            .where('subscriber_internal_id', '=', subscriberInternalId)
            .where((eb) => messageCondition(eb, filter, dialect))
            .executeTakeFirstOrThrow();
          counts.push(Number(row.count));
        }
        return counts;
      },
      async idsMatching(env, subscriberInternalId, filter) {
        const rows = await db
          .selectFrom('tidings_messages')
          .select('id')
          .where('env', '=', env)
          .where('subscriber_internal_id', '=', subscriberInternalId)
          .where((eb) => messageCondition(eb, filter, dialect))
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .execute();
        return rows.map((r) => r.id);
      },
      async deleteMany(env, subscriberInternalId, ids) {
        let deleted = 0;
        for (const part of chunk([...new Set(ids)], 1, max - 2)) {
          const result = await db.deleteFrom('tidings_messages').where('env', '=', env).where('subscriber_internal_id', '=', subscriberInternalId).where('id', 'in', part).executeTakeFirst();
          deleted += Number(result.numDeletedRows);
        }
        return deleted;
      },
      async counts(env, subscriberInternalId, query = {}) {
        let q = db
          .selectFrom('tidings_messages')
          .select((eb) => [
            eb.fn.countAll().as('total'),
            eb.fn.sum(eb.case().when('read', '=', 0).then(1).else(0).end()).as('unread'),
            eb.fn.sum(eb.case().when('seen', '=', 0).then(1).else(0).end()).as('unseen'),
          ])
          .where('env', '=', env)
          .where('subscriber_internal_id', '=', subscriberInternalId)
          .where('archived', '=', 0);
        if (query.channel !== undefined) q = q.where('channel', '=', query.channel);
        if (query.now !== undefined) q = q.where((eb) => eb.or([eb('snoozed_until', 'is', null), eb('snoozed_until', '<=', query.now!)])).where((eb) => unexpired(eb, query.now!));
        const row = await q.executeTakeFirstOrThrow();
        return { total: Number(row.total), unread: Number(row.unread ?? 0), unseen: Number(row.unseen ?? 0) };
      },
      async listByTransaction(env, transactionId) {
        const rows = await db.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env).where('transaction_id', '=', transactionId).orderBy('created_at').orderBy('id').execute();
        return rows.map(messageFromRow);
      },
    },
    traces: {
      // Records of one trigger written in one call share a row (a topic fan-out writes one row per
      // batch, not one per subscriber); `subscriber_id` is '*' on shared rows.
      async append(records) {
        const groups = new Map<string, DecisionRecord[]>();
        for (const r of records) {
          const key = `${r.environmentId}\u0001${r.transactionId}`;
          const group = groups.get(key);
          if (group) group.push(r);
          else groups.set(key, [r]);
        }
        const rows = [...groups.values()].map((group) => {
          const first = group[0]!;
          const single = group.every((r) => r.subscriberId === first.subscriberId);
          return [first.environmentId, first.transactionId, single ? first.subscriberId : '*', first.at, encodeTraceDoc(group)];
        });
        await insertTraces(db, dialect, rows);
      },
      async list(env, transactionId, subscriberId) {
        let q = db.selectFrom('tidings_traces').select(['doc', 'env', 'transaction_id']).where('env', '=', env).where('transaction_id', '=', transactionId);
        if (subscriberId !== undefined) q = q.where((eb) => eb.or([eb('subscriber_id', '=', subscriberId), eb('subscriber_id', '=', '*')]));
        const records = (await q.orderBy('at').orderBy('seq').execute()).flatMap((row) => decodeTraceDoc(row.doc, row));
        records.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
        return subscriberId === undefined ? records : records.filter((r) => r.subscriberId === subscriberId);
      },
    },
  };
}
