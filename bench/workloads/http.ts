import { join } from 'node:path';
import { serve } from '@tidings/http';
import autocannon from 'autocannon';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/** Workload 5: autocannon against `tidings serve` on 127.0.0.1 — bulk triggers of 100 events, 16 connections. */
export async function httpWorkload(ctx: BenchContext): Promise<Row[]> {
  const dir = tempDir('http');
  const server = await serve({ port: 0, db: join(dir, `${freshName('http')}.db`), apiKey: 'bench-key' });
  await server.tidings.workflows.upsert({ name: 'Bench', triggers: [{ identifier: 'bench' }], steps: [{ template: { type: 'in_app', content: 'Hello {{ subscriber.subscriberId }}' } }] });
  let n = 0;
  const body = () => JSON.stringify({ events: Array.from({ length: 100 }, () => ({ name: 'bench', to: `h-${n++}`, payload: { n } })) });
  const result = await autocannon({
    url: `${server.url}/v1/events/trigger/bulk`,
    connections: 16,
    duration: ctx.quick ? 3 : 20,
    method: 'POST',
    headers: { authorization: 'ApiKey bench-key', 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }],
  });
  await server.close();
  const errors = result.errors + result.timeouts + result.non2xx;
  ctx.log(`  http: ${result.requests.average} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${errors} errors`);
  return [
    { workload: 'HTTP bulk trigger (100 events), 16 connections, SQLite', backend: 'sqlite', unit: 'requests/s', value: result.requests.average, spread: 0, runs: 1 },
    { workload: 'HTTP bulk trigger latency p50', backend: 'sqlite', unit: 'ms', value: result.latency.p50, spread: 0, runs: 1 },
    { workload: 'HTTP bulk trigger latency p99', backend: 'sqlite', unit: 'ms', value: result.latency.p99, spread: 0, runs: 1, target: '< 50 ms', met: result.latency.p99 < 50 },
    { workload: 'HTTP errors (errors, timeouts, non-2xx)', backend: 'sqlite', unit: 'count', value: errors, spread: 0, runs: 1, target: '0', met: errors === 0 },
  ];
}
