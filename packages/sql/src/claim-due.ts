import type { Job } from '@tidings/core';
import type { ClaimOptions } from '@tidings/core/internal';
import type { Db, JobRow } from './dialect.js';
import { jobFromRow } from './repositories/delivery.js';

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
 * The one statement that leases due jobs, shared by both dialects: they differ only in the row lock
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
  return rows.map(jobFromRow).sort((a, b) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.id < b.id ? -1 : 1));
}
