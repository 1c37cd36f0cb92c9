import type { Tidings } from '@tidings/core';
import type { Hono } from 'hono';
import type { AppEnv } from './context.js';

/** How long a readiness probe waits for the storage before it reports it as not answering. */
const PROBE_MS = 2_000;

async function probe(tidings: Tidings): Promise<{ ok: true; latencyMs: number } | { ok: false; error: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      tidings.probeStorage(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the storage did not answer within ${PROBE_MS} ms`)), PROBE_MS))),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** The engine's write health, tried again with one small write while it is failing (bounded like the read probe). */
async function recheck(tidings: Tidings) {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<ReturnType<Tidings['health']>['writes']>((resolve) => (timer = setTimeout(() => resolve(tidings.health().writes), PROBE_MS)));
  try {
    return await Promise.race([tidings.recheckWrites(), gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /health/live`: the process answers (200). `GET /health/ready` and `GET /health`: each
 * environment's storage answers a read within 2 s, its job loop is not stuck and its last write
 * committed (200), else 503 with what failed. No API key:
 * load balancers and orchestrators call them; they reveal no records.
 */
export function healthRoutes(app: Hono<AppEnv>, engines: readonly Tidings[]): void {
  app.get('/health/live', (c) => c.json({ status: 'ok' }));
  const ready = async () => {
    const storages = await Promise.all(engines.map(async (t) => ({ environmentId: t.environmentId, ...(await probe(t)) })));
    const jobLoops = engines.map((t) => ({ environmentId: t.environmentId, ...t.health().jobLoop }));
    const writes = await Promise.all(engines.map(async (t) => ({ environmentId: t.environmentId, ...(await recheck(t)) })));
    const ok = storages.every((s) => s.ok) && jobLoops.every((l) => !l.stuck) && writes.every((w) => w.ok);
    return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', storage: storages, jobLoop: jobLoops, writes } };
  };
  for (const path of ['/health', '/health/ready']) {
    app.get(path, async (c) => {
      const { status, body } = await ready();
      return c.json(body, status as 200);
    });
  }
}
