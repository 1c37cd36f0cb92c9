import { Kysely, sql, type PostgresPool } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { scanlessPostgresDialect } from '../src/scanless-driver.js';
import { postgresStorage, type PgPool } from '../src/index.js';

const url = process.env['TIDINGS_TEST_PG_URL'];

/** A pool of one connection that records the text of every query sent on it. */
function recordingPool(sent: string[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      sent.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text));
      return query(...args);
    }) as typeof client.query;
  });
  return pool;
}

describe.skipIf(!url)('postgres: how a transaction begins', () => {
  it('a serializable transaction begins with sequential scans off, in one round trip; others and plain statements keep the server default', async () => {
    const sent: string[] = [];
    const pool = recordingPool(sent);
    const db = new Kysely<Record<string, never>>({ dialect: scanlessPostgresDialect({ pool: pool as unknown as PostgresPool }) });
    try {
      const show = async (run: Kysely<Record<string, never>>) => {
        const { rows } = await sql<{ scan: string; isolation: string }>`select current_setting('enable_seqscan') as scan, current_setting('transaction_isolation') as isolation`.execute(run);
        return rows[0];
      };
      sent.length = 0;
      expect(await db.transaction().setIsolationLevel('serializable').execute(show)).toEqual({ scan: 'off', isolation: 'serializable' });
      expect(sent).toHaveLength(3);
      expect(sent[0]).toBe('start transaction isolation level serializable; set local enable_seqscan = off');
      expect(await show(db)).toEqual({ scan: 'on', isolation: 'read committed' });
      expect(await db.transaction().execute(show)).toEqual({ scan: 'on', isolation: 'read committed' });
      expect(await db.transaction().setIsolationLevel('repeatable read').execute(show)).toEqual({ scan: 'on', isolation: 'repeatable read' });
    } finally {
      await db.destroy();
    }
  });

  it("the storage's transactions begin that way: one statement before the work, then the commit", async () => {
    const sent: string[] = [];
    const pool = recordingPool(sent);
    const schema = `tidings_scanless_${process.pid}`;
    const storage = postgresStorage({ pool: pool as unknown as PgPool, schema });
    try {
      await storage.migrate();
      sent.length = 0;
      await storage.transaction((tx) => tx.settings.put('default', 'probe', { on: true }));
      expect(sent[0]).toBe('start transaction isolation level serializable; set local enable_seqscan = off');
      expect(sent.at(-1)).toBe('commit');
      expect(sent).toHaveLength(3);
      expect(await storage.settings.get('default', 'probe')).toEqual({ on: true });
    } finally {
      await storage.close();
      await pool.query(`drop schema if exists "${schema}" cascade`);
      await pool.end();
    }
  });
});
