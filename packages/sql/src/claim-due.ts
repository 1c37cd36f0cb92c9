import type { ClaimOptions, Job } from '@tidings/core';
import { sql, type RawBuilder } from 'kysely';
import type { Db, JobRow } from './dialect.js';
import { jobFromRow } from './repositories/delivery.js';

/**
 * The one statement that leases due jobs, shared by both dialects: they differ only in the row lock
 * of the inner select (`for update skip locked` on Postgres; SQLite's single writer needs none).
 */
export async function claimDueJobs(db: Db, { env, workerId, now, limit, leaseMs }: ClaimOptions, rowLock: RawBuilder<unknown>): Promise<Job[]> {
  const until = new Date(Date.parse(now) + leaseMs).toISOString();
  const envFilter = env === undefined ? sql`` : sql`and env = ${env}`;
  const { rows } = await sql<JobRow>`
    update tidings_jobs
       set locked_by = ${workerId}, locked_until = ${until}, attempts = attempts + 1
     where id in (
       select id from tidings_jobs
        where run_at <= ${now} and (locked_until is null or locked_until <= ${now}) ${envFilter}
        order by run_at, id
        limit ${limit}
        ${rowLock})
    returning *`.execute(db);
  return rows.map(jobFromRow).sort((a, b) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.id < b.id ? -1 : 1));
}
