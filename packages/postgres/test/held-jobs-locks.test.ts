import { fixtures } from '@tidings/core/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];

/** The relations of `schema` on which some transaction holds a predicate lock of the whole relation. */
async function wholeRelationReadLocks(schema: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string }>(
      `select c.relname as name from pg_locks l join pg_class c on c.oid = l.relation join pg_namespace n on n.oid = c.relnamespace
       where l.mode = 'SIReadLock' and l.locktype = 'relation' and n.nspname = $1 order by 1`,
      [schema],
    );
    return rows.map((row) => row.name);
  } finally {
    await admin.end();
  }
}

describe.skipIf(!url)('postgres — the statements on held jobs read them by primary key', () => {
  const schema = freshSchemas(url, 'tidings_held')();

  // Under SERIALIZABLE, a read of a whole index holds a predicate lock on all of it, and every
  // concurrent transaction that inserts a job (a fan-out page) then fails on serialization. A jobs
  // table not yet analysed is where the planner was tempted: every table is one at first.
  it('completing and renewing a batch on a table not yet analysed locks no whole jobs relation', { timeout: 60_000 }, async () => {
    const storage = postgresStorage({ connectionString: url!, schema, max: 2 });
    try {
      const now = new Date().toISOString();
      await storage.jobs.nextDueAt('default');
      // No analysis while the test runs: the planner sees the table as it first is.
      await sql`alter table ${sql.table(`${schema}.tidings_jobs`)} set (autovacuum_enabled = false)`.execute(storage.db);
      for (let i = 0; i < 4; i++) {
        const jobs = Array.from({ length: 500 }, (_, k) => fixtures.jobRecord('default', { runAt: now, transactionId: `t-${i}`, subscriberId: `s-${i * 500 + k}` }));
        await storage.transaction((tx) => tx.jobs.enqueue('default', jobs));
      }
      const claimed = await storage.jobs.claimDue({ env: 'default', workerId: 'w1', now, limit: 100, leaseMs: 60_000 });
      expect(claimed).toHaveLength(100);
      const ids = claimed.map((job) => job.id);

      const seen = await storage.transaction(async (tx) => {
        const renewed = await tx.jobs.renew('default', ids, 'w1', new Date(Date.now() + 120_000).toISOString());
        const completed = await tx.jobs.complete('default', ids, 'w1');
        return { renewed: renewed.length, completed: completed.length, locks: await wholeRelationReadLocks(schema) };
      });
      expect(seen).toEqual({ renewed: 100, completed: 100, locks: [] });
    } finally {
      await storage.close();
    }
  });
});
