import { sql, type ExpressionBuilder } from 'kysely';
import { type Job, type Message } from '@tidings/core';
import type { JobLane, KernelRepositories } from '@tidings/core/internal';
import { chunk, decodeJson, encodeJson } from '../codec.js';
import type { JobRow } from '../dialect.js';
import type { Database } from '../tables.js';
import { deleteReturning, updateReturning } from '../returning-write.js';
import { MESSAGE_SELECT, messageFromRow, messageRow } from '../message-row.js';
import { messageCondition } from '../message-filter.js';
import { rowInserter } from '../row-inserter.js';
import { inLane, laneTakesNothing } from '../job-lane.js';
import { reusableQuery } from '../reusable-query.js';
import type { RepoContext } from './context.js';

type Delivery = Pick<KernelRepositories, 'jobs' | 'messages'>;

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
    ...(Number(row.priority) === BULK && { priority: 'bulk' }),
  } as Job;
}

/** A job's class as its column holds it. */
const TRANSACTIONAL = 0;
const BULK = 1;

const JOB_COLUMNS = ['id', 'env', 'kind', 'run_at', 'attempts', 'locked_by', 'locked_until', 'transaction_id', 'subscriber_id', 'data', 'last_error', 'job_key', 'priority'] as const;
const insertJobs = rowInserter('tidings_jobs', JOB_COLUMNS);
// A keyed job moves the stored job with its key (graphile-worker's replace mode). Only keyed jobs pay
// for the upsert: an insert with ON CONFLICT is slower per row, and most jobs have no key.
const upsertKeyedJobs = rowInserter('tidings_jobs', JOB_COLUMNS, { upsert: { key: ['env', 'job_key'], whereNotNull: 'job_key', update: ['run_at'] } });
const MESSAGE_COLUMNS = ['id', 'env', 'subscriber_internal_id', 'transaction_id', 'channel', 'read', 'seen', 'created_at', 'doc', 'archived', 'snoozed_until', 'tags', 'severity', 'expires_at', 'context_key'] as const;
const insertMessages = rowInserter('tidings_messages', MESSAGE_COLUMNS, { skipTaken: true, returning: 'id' });

/**
 * The environment as a condition no index serves (`coalesce` of a column that is never null): the
 * statements on held jobs find them by primary key. With `env = ?` the Postgres planner, on a jobs
 * table not yet analysed, read a whole index by environment instead; under SERIALIZABLE that read
 * locks the index whole, and every concurrent enqueue then failed and was retried.
 */
const inEnvironment = (eb: ExpressionBuilder<Database, 'tidings_jobs'>, env: string) => eb(eb.fn.coalesce('env', sql.lit('')), '=', env);

/** The jobs of `ids` that `workerId` holds, in the environment. */
const heldJobs = (eb: ExpressionBuilder<Database, 'tidings_jobs'>, { env, ids, workerId }: { env: string; ids: readonly string[]; workerId: string }) =>
  eb.and([eb('id', 'in', ids), eb('locked_by', '=', workerId), inEnvironment(eb, env)]);

const renewHeld = updateReturning<{ env: string; ids: readonly string[]; workerId: string; until: string }, 'tidings_jobs', 'id'>(
  'tidings_jobs',
  ({ until }) => ({ locked_until: until }),
  heldJobs,
  ['id'],
);
const deleteClaimed = deleteReturning<{ env: string; ids: readonly string[]; workerId: string }, 'tidings_jobs', 'id'>(
  'tidings_jobs',
  heldJobs,
  ['id'],
);

/**
 * The most messages read by one statement: the driver decodes a result whole, so 20,000 rows at once
 * held the event loop for 0.6 s; a thousand at a time lets other requests in between.
 */
const ROWS_PER_READ = 1_000;

/** A lane's jobs as `nextDueAt` reads them: `env` holds the environment or nothing (every one), `kinds` the lane's or nothing (every kind). */
type DueArgs = { env: readonly string[]; kinds: NonNullable<JobLane['kinds']>; exceptKinds: NonNullable<JobLane['exceptKinds']> };

/**
 * The instants at which a lane's first jobs become claimable, in one statement built once per shape
 * (`runDue()` asks it on every call): the earliest unleased `run_at`, and the earliest lease end.
 */
const earliestClaimable = reusableQuery<DueArgs>((db, args) => {
  const lane = { ...(args.kinds.length > 0 && { kinds: args.kinds }), exceptKinds: args.exceptKinds };
  const earliest = (column: 'run_at' | 'locked_until') => {
    const query = inLane(db.selectFrom('tidings_jobs').select(`${column} as at`).where('locked_until', column === 'run_at' ? 'is' : 'is not', null).orderBy(column).limit(1), lane);
    return args.env.length === 0 ? query : query.where('env', '=', args.env[0]!);
  };
  return db.selectFrom(earliest('run_at').as('free')).select('free.at').unionAll(db.selectFrom(earliest('locked_until').as('leased')).select('leased.at'));
});

export function deliveryRepositories({ db, dialect }: RepoContext): Delivery {
  const max = dialect.maxParams;
  return {
    jobs: {
      async enqueue(env, jobs) {
        if (jobs.length === 0) return;
        const row = (j: Job) => [j.id, env, j.kind, j.runAt, j.attempts, j.lockedBy, j.lockedUntil, j.transactionId, j.subscriberId, encodeJson(j.data), j.lastError, j.key ?? null, j.priority === 'bulk' ? BULK : TRANSACTIONAL];
        const keyed = jobs.filter((j) => j.key);
        const plain = keyed.length === 0 ? jobs : jobs.filter((j) => !j.key);
        if (plain.length > 0) await insertJobs(db, dialect, plain.map(row));
        if (keyed.length > 0) await upsertKeyedJobs(db, dialect, keyed.map(row));
        if (dialect.notifyJobs) await dialect.notifyJobs(db, env);
      },
      claimDue: (options) => dialect.claimDue(db, options, dialect),
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
      async cancelBySubscriber(env, subscriberId) {
        const result = await db.deleteFrom('tidings_jobs').where('env', '=', env).where('subscriber_id', '=', subscriberId).executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      async nextDueAt(env, lane = {}) {
        if (laneTakesNothing(lane)) return null;
        const { rows } = await earliestClaimable<{ at: string | null }>(db, dialect, { env: env === undefined ? [] : [env], kinds: lane.kinds ?? [], exceptKinds: lane.exceptKinds ?? [] });
        const candidates = rows.map((row) => row.at).filter((at): at is string => typeof at === 'string');
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
      async find(env, lookup) {
        if ('transactionId' in lookup) {
          const rows = await db.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env).where('transaction_id', '=', lookup.transactionId).orderBy('created_at').orderBy('id').execute();
          return rows.map(messageFromRow);
        }
        const found: Message[] = [];
        for (const part of chunk([...new Set(lookup.ids)], 1, Math.min(max - 2, ROWS_PER_READ))) {
          const rows = await db.selectFrom('tidings_messages').select(MESSAGE_SELECT).where('env', '=', env).where('subscriber_internal_id', '=', lookup.subscriberInternalId).where('id', 'in', part).execute();
          for (const row of rows) found.push(messageFromRow(row));
        }
        return found;
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
        const after = query.after;
        if (after) q = q.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
        q = q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit);
        if (query.offset) q = q.offset(query.offset);
        return (await q.execute()).map(messageFromRow);
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
    },
  };
}
