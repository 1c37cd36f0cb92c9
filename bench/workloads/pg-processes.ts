import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import autocannon from 'autocannon';
import { openSse } from '../../test-support/sse-client.js';
import { spawnTs, waitForOutput } from '../../test-support/spawn-ts.js';
import { cliEntry } from '../lib/packages.js';
import { percentile } from '../lib/stats.js';
import { freshName } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

const CLI = cliEntry();
const KEY = 'bench-key';
const CONNECTIONS = 8;

type Served = ReturnType<typeof spawnTs> & { url: string };

/** `tidings serve` on the bench's Postgres schema, as a user runs it; resolves once every process listens. */
async function served(pgUrl: string, schema: string, processes: number): Promise<Served> {
  const child = spawnTs(CLI, ['serve', '--port', '0', '--postgres', pgUrl, '--schema', schema, '--api-key', KEY, '--processes', String(processes)]);
  await waitForOutput(child, 'Application identifier', 60_000);
  return Object.assign(child, { url: /Tidings listening on (\S+)/.exec(child.output())![1]! });
}

async function stop(child: Served) {
  child.kill('SIGTERM');
  await child.exited;
}

/** Bulk triggers of 100 events (one in-app step, stored inside the request) for `seconds`; events/s acknowledged with every message stored. */
async function bulkThroughput(url: string, seconds: number, prefix: string) {
  let n = 0;
  const body = () => JSON.stringify({ events: Array.from({ length: 100 }, () => ({ name: 'bench', to: `${prefix}-${n++}`, payload: { n } })) });
  const result = await autocannon({
    url: `${url}/v1/events/trigger/bulk`,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }],
  });
  return { eventsPerSecond: result.requests.average * 100, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
}

/**
 * Several processes on one Postgres: HTTP bulk-trigger throughput of `tidings serve` with one process
 * and with `--processes 2` (one port, node cluster) in the same run, and the live relay's delay: from
 * sending a trigger to process B until process A's live stream (SSE) has the message, beside the same
 * delay on B itself.
 */
export async function pgProcessesWorkload(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.pgUrl) {
    ctx.log('  skipped: set TIDINGS_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to measure several processes on Postgres');
    return [];
  }
  const schema = freshName('procs');
  const seed = postgresStorage({ connectionString: ctx.pgUrl, schema });
  const seeded = createTidings({ storage: seed });
  await seeded.workflows.upsert({ name: 'Bench', triggers: [{ identifier: 'bench' }], steps: [{ template: { type: 'in_app', content: 'Hello {{ payload.n }}' } }] });
  await seeded.subscribers.upsert({ subscriberId: 'relay' });
  const rows: Row[] = [];
  try {
    const seconds = ctx.quick ? 1 : 15;
    const throughput: Record<number, Awaited<ReturnType<typeof bulkThroughput>>> = {};
    // The quick run (the test suite's) skips the cluster: its tests start one already.
    for (const processes of ctx.quick ? [1] : [1, 2]) {
      const server = await served(ctx.pgUrl, schema, processes);
      try {
        throughput[processes] = await bulkThroughput(server.url, seconds, `p${processes}`);
      } finally {
        await stop(server);
      }
      const t = throughput[processes]!;
      ctx.log(`  postgres, ${processes} process(es): ${Math.round(t.eventsPerSecond)} events/s, p99 ${t.p99} ms, ${t.errors} errors`);
    }
    const [one, two] = [throughput[1]!, throughput[2]];
    const errors = one.errors + (two?.errors ?? 0);
    rows.push({ workload: `HTTP bulk trigger (100 events, in-app stored in the request), ${CONNECTIONS} connections, Postgres, 1 process`, backend: 'postgres', unit: 'events/s', value: one.eventsPerSecond, spread: 0, runs: 1 });
    if (two) rows.push({ workload: `Same, 2 processes (tidings serve --processes 2)`, backend: 'postgres', unit: 'events/s', value: two.eventsPerSecond, spread: 0, runs: 1, ratio: two.eventsPerSecond / one.eventsPerSecond });
    rows.push({ workload: 'HTTP errors with 1 and 2 processes (errors, timeouts, non-2xx)', backend: 'postgres', unit: 'count', value: errors, spread: 0, runs: 1, target: '0', met: errors === 0 });

    // The relay: A and B are separate processes on the schema; triggers go to B one at a time.
    const [a, b] = await Promise.all([served(ctx.pgUrl, schema, 1), served(ctx.pgUrl, schema, 1)]);
    try {
      const [onA, onB] = await Promise.all([openSse(a.url, 'relay', KEY), openSse(b.url, 'relay', KEY)]);
      const arrival = (client: typeof onA, n: number) => client.events.find((e) => e.event === 'message' && (e.data as { content: string }).content === `Hello ${n}`)?.at;
      const other: number[] = [];
      const same: number[] = [];
      const count = ctx.quick ? 10 : 300;
      for (let n = 0; n < count; n++) {
        const sent = Date.now();
        const response = await fetch(`${b.url}/v1/events/trigger`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', to: 'relay', payload: { n } }) });
        await response.arrayBuffer();
        while (arrival(onA, n) === undefined || arrival(onB, n) === undefined) {
          if (Date.now() - sent > 5_000) throw new Error(`trigger ${n} never reached a live stream`);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        other.push(arrival(onA, n)! - sent);
        same.push(arrival(onB, n)! - sent);
      }
      onA.close();
      onB.close();
      other.sort((x, y) => x - y);
      same.sort((x, y) => x - y);
      ctx.log(`  relay: trigger → live event on another process p50 ${percentile(other, 50)} ms, p99 ${percentile(other, 99)} ms (same process p50 ${percentile(same, 50)} ms, p99 ${percentile(same, 99)} ms)`);
      rows.push(
        { workload: 'Live relay: trigger → SSE event on another process, p50', backend: 'postgres', unit: 'ms', value: percentile(other, 50), spread: 0, runs: count },
        { workload: 'Live relay: trigger → SSE event on another process, p99', backend: 'postgres', unit: 'ms', value: percentile(other, 99), spread: 0, runs: count, target: '< 1,000 ms', met: percentile(other, 99) < 1_000 },
        { workload: 'Same, on the process that delivered it (for comparison), p50', backend: 'postgres', unit: 'ms', value: percentile(same, 50), spread: 0, runs: count },
        { workload: 'Same, on the process that delivered it (for comparison), p99', backend: 'postgres', unit: 'ms', value: percentile(same, 99), spread: 0, runs: count },
      );
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  } finally {
    await seed.close();
    const admin = postgresStorage({ connectionString: ctx.pgUrl, max: 1, migrate: false });
    await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
    await admin.close();
  }
  return rows;
}
