import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import autocannon from 'autocannon';
import { spawnTs, waitForOutput } from '../../test-support/spawn-ts.js';
import { cliEntry } from '../lib/packages.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

const CLI = cliEntry();

/** autocannon against one route for a while; each request's body made fresh by `body`. */
async function load(url: string, path: string, connections: number, seconds: number, body: () => string) {
  const result = await autocannon({
    url: `${url}${path}`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { authorization: 'ApiKey bench-key', 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }],
  });
  return { requests: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
}

/**
 * Workload 5: autocannon against `tidings serve` on SQLite over loopback, the server in its own
 * process as a user runs it (the load generator does not share its event loop): single-event triggers
 * at 16 connections, and bulk triggers of 100 events at 4 connections. In-app messages are stored in
 * the request, so each answer means the messages exist.
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
    const seconds = ctx.quick ? 1 : 15;
    let n = 0;
    const single = await load(url, '/v1/events/trigger', 16, seconds, () => JSON.stringify({ name: 'bench', to: `s-${n++}`, payload: { n } }));
    const bulk = await load(url, '/v1/events/trigger/bulk', 4, seconds, () => JSON.stringify({ events: Array.from({ length: 100 }, () => ({ name: 'bench', to: `h-${n++}`, payload: { n } })) }));
    ctx.log(`  http single: ${single.requests} req/s, p50 ${single.p50} ms, p99 ${single.p99} ms, ${single.errors} errors`);
    ctx.log(`  http bulk: ${bulk.requests} req/s (${bulk.requests * 100} events/s), p50 ${bulk.p50} ms, p99 ${bulk.p99} ms, ${bulk.errors} errors`);
    const errors = single.errors + bulk.errors;
    return [
      { workload: 'HTTP single-event trigger, 16 connections, SQLite', backend: 'sqlite', unit: 'requests/s', value: single.requests, spread: 0, runs: 1 },
      { workload: 'HTTP single-event trigger, 16 connections, p99', backend: 'sqlite', unit: 'ms', value: single.p99, spread: 0, runs: 1, target: '< 20 ms', met: single.p99 < 20 },
      { workload: 'HTTP bulk trigger (100 events), 4 connections, SQLite', backend: 'sqlite', unit: 'events/s', value: bulk.requests * 100, spread: 0, runs: 1 },
      { workload: 'HTTP bulk trigger (100 events), 4 connections, p99', backend: 'sqlite', unit: 'ms', value: bulk.p99, spread: 0, runs: 1, target: '< 50 ms', met: bulk.p99 < 50 },
      { workload: 'HTTP errors (errors, timeouts, non-2xx)', backend: 'sqlite', unit: 'count', value: errors, spread: 0, runs: 1, target: '0', met: errors === 0 },
    ];
  } finally {
    server.kill('SIGTERM');
    await server.exited;
  }
}
