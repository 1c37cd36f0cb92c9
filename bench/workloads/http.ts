import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import autocannon from 'autocannon';
import { spawnTs, waitForOutput } from '../../test-support/spawn-ts.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

const CLI = fileURLToPath(new URL('../../packages/http/src/cli.ts', import.meta.url));
const CONNECTIONS = 16;

/**
 * Workload 5: autocannon against `tidings serve` on 127.0.0.1 — bulk triggers of 100 events, 16
 * connections. The server is its own process (as a user runs it), so the load generator does not
 * share its event loop; its job loop delivers the messages while the requests come in.
 */
export async function httpWorkload(ctx: BenchContext): Promise<Row[]> {
  const db = join(tempDir('http'), `${freshName('http')}.db`);
  const seed = sqliteStorage({ filename: db });
  await createTidings({ storage: seed }).workflows.upsert({ name: 'Bench', triggers: [{ identifier: 'bench' }], steps: [{ template: { type: 'in_app', content: 'Hello {{ subscriber.subscriberId }}' } }] });
  await seed.close();
  const server = spawnTs(CLI, ['serve', '--port', '0', '--db', db, '--api-key', 'bench-key']);
  try {
    await waitForOutput(server, 'Tidings listening on ');
    const url = /Tidings listening on (\S+)/.exec(server.output())![1]!;
    let n = 0;
    const body = () => JSON.stringify({ events: Array.from({ length: 100 }, () => ({ name: 'bench', to: `h-${n++}`, payload: { n } })) });
    const result = await autocannon({
      url: `${url}/v1/events/trigger/bulk`,
      connections: CONNECTIONS,
      duration: ctx.quick ? 3 : 20,
      method: 'POST',
      headers: { authorization: 'ApiKey bench-key', 'content-type': 'application/json' },
      requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }],
    });
    const errors = result.errors + result.timeouts + result.non2xx;
    // Little's law: with every connection always waiting on a request, mean latency is connections ÷
    // throughput; a p99 under 50 ms needs at least this many requests per second.
    const needed = CONNECTIONS / 0.05;
    ctx.log(`  http: ${result.requests.average} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${errors} errors (p99 < 50 ms needs ≥ ${needed} req/s)`);
    return [
      { workload: 'HTTP bulk trigger (100 events), 16 connections, SQLite', backend: 'sqlite', unit: 'requests/s', value: result.requests.average, spread: 0, runs: 1, baseline: needed, ratio: result.requests.average / needed },
      { workload: 'HTTP bulk trigger latency p50', backend: 'sqlite', unit: 'ms', value: result.latency.p50, spread: 0, runs: 1 },
      { workload: 'HTTP bulk trigger latency p99', backend: 'sqlite', unit: 'ms', value: result.latency.p99, spread: 0, runs: 1, target: '< 50 ms', met: result.latency.p99 < 50 },
      { workload: 'HTTP errors (errors, timeouts, non-2xx)', backend: 'sqlite', unit: 'count', value: errors, spread: 0, runs: 1, target: '0', met: errors === 0 },
    ];
  } finally {
    server.kill('SIGTERM');
    await server.exited;
  }
}
