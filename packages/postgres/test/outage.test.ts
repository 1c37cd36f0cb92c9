import { createTidings } from '@tidings/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { tcpProxy } from '../../../test-support/tcp-proxy.js';
import { postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await pause(50);
  }
}

const hello = { name: 'hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'in_app' as const, content: 'hi' } }] };

describe.skipIf(!url)('postgres — a failing database', () => {
  const fresh = freshSchemas(url, 'tidings_out');

  /** A storage that reaches Postgres through a TCP proxy the test controls, with short timeouts. */
  async function throughProxy(timeouts: { connectTimeoutMs: number; statementTimeoutMs: number }) {
    const target = new URL(url!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const via = new URL(url!);
    via.hostname = '127.0.0.1';
    via.port = String(proxy.port);
    const storage = postgresStorage({ connectionString: via.toString(), schema: fresh(), ...timeouts, onConnectionError: () => undefined });
    return { proxy, storage };
  }

  it('pg_terminate_backend on every connection of the storage: the process lives, serves again, and the LISTEN connection comes back', { timeout: 60_000 }, async () => {
    const schema = fresh();
    const applicationName = `tidings-test-${schema}`;
    const lost: string[] = [];
    const storage = postgresStorage({ connectionString: url!, schema, applicationName, onConnectionError: (e) => lost.push(e.message) });
    // A second "process" on the same database enqueues; the first one's loop must still hear it after the cut.
    const other = postgresStorage({ connectionString: url!, schema });
    const worker = createTidings({ storage, maxIdleMs: 60_000, onError: () => undefined });
    const producer = createTidings({ storage: other, inlineInApp: false });
    await producer.workflows.upsert(hello);
    await producer.subscribers.upsert({ subscriberId: 'ada' });
    worker.start();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const ours = async () => Number((await admin.query('select count(*) from pg_stat_activity where application_name = $1', [applicationName])).rows[0].count);
    // The LISTEN connection is the one whose loss the storage reports (a pool connection lost in a
    // query fails that query instead): wait until it is open, so the cut cannot come before it.
    const listening = async () => Number((await admin.query(`select count(*) from pg_stat_activity where application_name = $1 and query ilike 'listen %'`, [applicationName])).rows[0].count);
    await eventually(async () => (await listening()) > 0);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [applicationName]);
    await eventually(async () => lost.length > 0);
    // Still alive: it serves, and the job loop (listening again) runs a job another process enqueued.
    await producer.trigger({ name: 'hello', to: 'ada', transactionId: 'after-cut' });
    await eventually(async () => (await worker.messages.byTransaction('after-cut')).length === 1, 15_000);
    expect(await ours()).toBeGreaterThan(0);
    await worker.stop();
    await admin.end();
    await storage.close();
    await other.close();
  });

  it('a cut network fails calls with an error (no crash, no hang) and they work again once it is back', { timeout: 60_000 }, async () => {
    const { proxy, storage } = await throughProxy({ connectTimeoutMs: 1_000, statementTimeoutMs: 2_000 });
    const tidings = createTidings({ storage, inlineInApp: false });
    await tidings.workflows.upsert(hello);
    expect((await tidings.trigger({ name: 'hello', to: 'ada' })).status).toBe('processed');
    await proxy.cut();
    // A hang would end at the test's timeout: failing at all is the proof.
    await expect(tidings.trigger({ name: 'hello', to: 'ada' })).rejects.toThrow();
    await proxy.restore();
    await eventually(async () => (await tidings.trigger({ name: 'hello', to: 'bob' })).status === 'processed');
    expect(await tidings.runDue()).toBeGreaterThanOrEqual(2);
    await storage.close();
    await proxy.close();
  });

  it('a database that accepts but never answers: calls fail naming the timeout, and stop() completes', { timeout: 60_000 }, async () => {
    const { proxy, storage } = await throughProxy({ connectTimeoutMs: 800, statementTimeoutMs: 1_000 });
    const tidings = createTidings({ storage, onError: () => undefined });
    await tidings.workflows.upsert(hello);
    tidings.start();
    proxy.blackHole();
    const error = await tidings.trigger({ name: 'hello', to: 'ada' }).then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/did not accept a connection within 800 ms \(connectTimeoutMs\)|Query read timeout|statement timeout|Connection terminated/);
    await tidings.stop();
    await storage.close();
    await proxy.close();
  });
});
