import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { postgresStorage, type PgPool } from '../src/index.js';

// No database needed: a pool whose one client fails while the storage stops listening on it.
it('a LISTEN connection that fails while the storage closes goes back to the pool once', async () => {
  const releases: (Error | undefined)[] = [];
  const client = Object.assign(new EventEmitter(), {
    async query(text: string) {
      // The connection dies as UNLISTEN is sent: pg reports the error on the client, then the query fails.
      if (text === 'unlisten *') {
        client.emit('error', new Error('terminating connection due to administrator command'));
        throw new Error('Connection terminated');
      }
      return { rows: [] };
    },
    release(error?: Error) {
      releases.push(error);
    },
  });
  const pool = Object.assign(new EventEmitter(), { connect: async () => client, query: async () => ({ rows: [] }), end: async () => undefined });
  const storage = postgresStorage({ pool: pool as unknown as PgPool, migrate: false, onConnectionError: () => undefined });
  const stop = storage.subscribeJobs!(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 10));
  stop();
  await storage.close();
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(releases).toHaveLength(1);
});
