import type { Job } from '@tidings/core';
import type { ClaimOptions } from '@tidings/core/internal';
import { CompiledQuery, sql, type ExpressionBuilder } from 'kysely';
import type { Db, JobRow, SqlDialect } from './dialect.js';
import { reusableQuery } from './reusable-query.js';
import { inLane, laneTakesNothing } from './job-lane.js';
import type { Database } from './tables.js';
import { jobFromRow } from './repositories/delivery.js';

const byRunAt = (a: Job, b: Job) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.id < b.id ? -1 : 1);
/** A claim's jobs in the order it served them: transactional, then bulk, each earliest first. */
const byClassThenRunAt = (a: Job, b: Job) => (a.priority === b.priority ? byRunAt(a, b) : a.priority === 'bulk' ? 1 : -1);

/** The inner select of a claim, before its row lock. */
type DueSelect = ReturnType<typeof dueJobIds>;

/** A job class as its column holds it, in the order a claim serves them: transactional, then bulk. */
const CLASSES = [0, 1] as const;

/**
 * A claim's values, its shape given by list lengths alone (see `reusableQuery`): `env` holds the
 * environment or nothing (every environment), `kinds` the lane's kinds or nothing (every kind).
 */
type ClaimArgs = {
  env: readonly string[];
  now: string;
  until: string;
  workerId: string;
  limit: number;
  kinds: NonNullable<ClaimOptions['kinds']>;
  exceptKinds: NonNullable<ClaimOptions['exceptKinds']>;
};

const claimArgs = (options: ClaimOptions): ClaimArgs => ({
  env: options.env === undefined ? [] : [options.env],
  now: options.now,
  until: new Date(Date.parse(options.now) + options.leaseMs).toISOString(),
  workerId: options.workerId,
  limit: options.limit,
  kinds: options.kinds ?? [],
  exceptKinds: options.exceptKinds ?? [],
});


/** The due, unleased jobs of the claim's environment (or every one) and lane, unordered. */
function dueJobs(db: Db, { env, now, kinds, exceptKinds }: Pick<ClaimArgs, 'env' | 'now' | 'kinds' | 'exceptKinds'>) {
  let query = db
    .selectFrom('tidings_jobs')
    .select('id')
    .where('run_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]));
  if (env.length > 0) query = query.where('env', '=', env[0]!);
  return inLane(query, { ...(kinds.length > 0 && { kinds }), exceptKinds });
}

/** The due, unleased jobs of one class, earliest first: a range of the (env, priority, run_at, id) index. */
function dueJobIds(db: Db, args: Pick<ClaimArgs, 'env' | 'now' | 'limit' | 'kinds' | 'exceptKinds'>, priority: number) {
  return dueJobs(db, args).where('priority', '=', priority).orderBy('run_at').orderBy('id').limit(args.limit);
}

/**
 * The due, unleased jobs of both classes, transactional first, each earliest first, read as one
 * range of the (env, priority, run_at, id) index: SQLite walks an `in` list on an index column in
 * the index's order, so it neither sorts nor materializes a class. Needs the environment (the
 * index starts with it).
 */
function dueJobIdsInOneRange(db: Db, args: Pick<ClaimArgs, 'env' | 'now' | 'limit' | 'kinds' | 'exceptKinds'>) {
  return dueJobs(db, args).where('priority', 'in', [...CLASSES]).orderBy('priority').orderBy('run_at').orderBy('id').limit(args.limit);
}

/** What a claim sets on the jobs it leases: its worker, the lease's end, one more attempt. */
const leasedTo = (args: ClaimArgs) => (eb: ExpressionBuilder<Database, 'tidings_jobs'>) => ({ locked_by: args.workerId, locked_until: args.until, attempts: eb('attempts', '+', 1) });

/**
 * The one statement that leases due jobs on Postgres and SQLite: the due transactional jobs, then as
 * many bulk ones as the batch has room for (each class read in its own index range), leased together.
 * The dialects differ only in the row lock of the inner selects (`for update skip locked` on
 * Postgres; SQLite's single writer needs none). With `inOneRange` (SQLite), a claim of one
 * environment reads both classes as one range instead (`dueJobIdsInOneRange`): half the cost, and
 * most of an empty claim's. With `readFirst` (SQLite), a read of one due job comes first, and with
 * none there is no update: an update opens a write transaction even when it matches nothing, which
 * measured 160–330 µs right after a commit against 30 µs for the read (a `runDue()` makes an empty
 * claim per lane). Built once per dialect and lane (`reusableQuery`): a worker claims many times a
 * second, and building the statement cost more than running it.
 */
export function dueJobsClaim(rowLock: (select: DueSelect) => DueSelect, { inOneRange = false, readFirst = false } = {}): (db: Db, options: ClaimOptions, dialect: SqlDialect) => Promise<Job[]> {
  const byClass = reusableQuery<ClaimArgs>((db, args) =>
    db
      .with('urgent', () => rowLock(dueJobIds(db, args, CLASSES[0])))
      .with('bulk', () => rowLock(dueJobIds(db, args, CLASSES[1]).clearLimit().limit(sql<number>`${args.limit} - (select count(*) from urgent)`)))
      .updateTable('tidings_jobs')
      .set(leasedTo(args))
      .where('id', 'in', (eb) => eb.selectFrom('urgent').select('id').unionAll(eb.selectFrom('bulk').select('id')))
      .returningAll(),
  );
  const oneRange = reusableQuery<ClaimArgs>((db, args) => db.updateTable('tidings_jobs').set(leasedTo(args)).where('id', 'in', rowLock(dueJobIdsInOneRange(db, args))).returningAll());
  const anyDue = reusableQuery<ClaimArgs>((db, args) => dueJobs(db, args).limit(1));
  return async (db, options, dialect) => {
    if (laneTakesNothing(options)) return [];
    const args = claimArgs(options);
    // A job committed after this read is one the claim would have missed had it run a moment sooner.
    if (readFirst && (await anyDue(db, dialect, args)).rows.length === 0) return [];
    const claim = inOneRange && args.env.length > 0 ? oneRange : byClass;
    const { rows } = await claim<JobRow>(db, dialect, args);
    return rows.map(jobFromRow).sort(byClassThenRunAt);
  };
}

/**
 * The locking read of due jobs, made to read the jobs in the order it takes them (`force index`):
 * InnoDB locks every row it reads, so a plan that reads them all and sorts (the optimizer's choice
 * on a small table) would lock every due job, and concurrent claims would skip them all.
 */
function inIndexOrder(query: CompiledQuery, env: string | undefined): CompiledQuery {
  const from = 'from `tidings_jobs`';
  if (!query.sql.includes(from)) throw new Error(`the claim's select reads ${query.sql}`);
  const index = env === undefined ? 'tidings_jobs_due' : 'tidings_jobs_env_priority_due';
  return CompiledQuery.raw(query.sql.replace(from, `${from} force index (${index})`), [...query.parameters]);
}

/**
 * The claim where an update cannot read the table it updates (MySQL): in one transaction, the due
 * jobs are read with `for update skip locked` (rows another process is claiming are passed over),
 * leased by id, and read again as leased.
 */
export function claimDueJobsLocked(db: Db, options: ClaimOptions, transaction: <T>(db: Db, fn: (tx: Db) => Promise<T>) => Promise<T>): Promise<Job[]> {
  if (laneTakesNothing(options)) return Promise.resolve([]);
  const args = claimArgs(options);
  return transaction(db, async (tx) => {
    const ids: string[] = [];
    // Transactional jobs first; bulk ones only for the room left.
    for (const priority of CLASSES) {
      if (ids.length >= args.limit) break;
      const select = dueJobIds(tx, { ...args, limit: args.limit - ids.length }, priority).forUpdate().skipLocked().compile();
      ids.push(...(await tx.executeQuery<{ id: string }>(inIndexOrder(select, options.env))).rows.map((row) => row.id));
    }
    if (ids.length === 0) return [];
    await tx
      .updateTable('tidings_jobs')
      .set(leasedTo(args))
      .where('id', 'in', ids)
      .execute();
    const rows = (await tx.selectFrom('tidings_jobs').selectAll().where('id', 'in', ids).execute()) as JobRow[];
    return rows.map(jobFromRow).sort(byClassThenRunAt);
  });
}
