import type { Job } from '@tidings/core';
import type { ClaimOptions } from '@tidings/core/internal';
import { CompiledQuery } from 'kysely';
import type { Db, JobRow } from './dialect.js';
import { jobFromRow } from './repositories/delivery.js';

const byRunAt = (a: Job, b: Job) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.id < b.id ? -1 : 1);

/** The inner select of a claim, before its row lock. */
type DueSelect = ReturnType<typeof dueJobIds>;

function dueJobIds(db: Db, { env, now, limit, kinds, exceptKinds }: Pick<ClaimOptions, 'env' | 'now' | 'limit' | 'kinds' | 'exceptKinds'>) {
  let query = db
    .selectFrom('tidings_jobs')
    .select('id')
    .where('run_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]));
  if (env !== undefined) query = query.where('env', '=', env);
  if (kinds !== undefined) query = query.where('kind', 'in', kinds.length > 0 ? [...kinds] : ['']);
  if (exceptKinds !== undefined && exceptKinds.length > 0) query = query.where('kind', 'not in', [...exceptKinds]);
  return query.orderBy('run_at').orderBy('id').limit(limit);
}

/**
 * The one statement that leases due jobs on Postgres and SQLite: they differ only in the row lock
 * of the inner select (`for update skip locked` on Postgres; SQLite's single writer needs none).
 */
export async function claimDueJobs(db: Db, options: ClaimOptions, rowLock: (select: DueSelect) => DueSelect): Promise<Job[]> {
  const until = new Date(Date.parse(options.now) + options.leaseMs).toISOString();
  const rows = (await db
    .updateTable('tidings_jobs')
    .set((eb) => ({ locked_by: options.workerId, locked_until: until, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', rowLock(dueJobIds(db, options)))
    .returningAll()
    .execute()) as JobRow[];
  return rows.map(jobFromRow).sort(byRunAt);
}

/**
 * The locking read of due jobs, made to read the jobs in the order it takes them (`force index`):
 * InnoDB locks every row it reads, so a plan that reads them all and sorts (the optimizer's choice
 * on a small table) would lock every due job, and concurrent claims would skip them all.
 */
function inIndexOrder(query: CompiledQuery, env: string | undefined): CompiledQuery {
  const from = 'from `tidings_jobs`';
  if (!query.sql.includes(from)) throw new Error(`the claim's select reads ${query.sql}`);
  const index = env === undefined ? 'tidings_jobs_due' : 'tidings_jobs_env_due';
  return CompiledQuery.raw(query.sql.replace(from, `${from} force index (${index})`), [...query.parameters]);
}

/**
 * The claim where an update cannot read the table it updates (MySQL): in one transaction, the due
 * jobs are read with `for update skip locked` (rows another process is claiming are passed over),
 * leased by id, and read again as leased.
 */
export function claimDueJobsLocked(db: Db, options: ClaimOptions, transaction: <T>(db: Db, fn: (tx: Db) => Promise<T>) => Promise<T>): Promise<Job[]> {
  const until = new Date(Date.parse(options.now) + options.leaseMs).toISOString();
  return transaction(db, async (tx) => {
    const ids = (await tx.executeQuery<{ id: string }>(inIndexOrder(dueJobIds(tx, options).forUpdate().skipLocked().compile(), options.env))).rows.map((row) => row.id);
    if (ids.length === 0) return [];
    await tx
      .updateTable('tidings_jobs')
      .set((eb) => ({ locked_by: options.workerId, locked_until: until, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', ids)
      .execute();
    const rows = (await tx.selectFrom('tidings_jobs').selectAll().where('id', 'in', ids).execute()) as JobRow[];
    return rows.map(jobFromRow).sort(byRunAt);
  });
}
