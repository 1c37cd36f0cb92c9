import { serve as serveNode } from '@hono/node-server';
import { get as httpGet, type Server as HttpServer } from 'node:http';
import { createTidings, type Storage } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { expect } from 'vitest';
import { createHttpApp } from '../src/index.js';

export const KEY_A = 'key-env-a';
export const KEY_B = 'key-env-b';

/** Two environments on one storage, each with its engine and API key, and the app over both. */
export async function setup() {
  const storage = memoryStorage();
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const a = createTidings({ storage, clock, environmentId: 'env-a', organizationId: 'org' });
  const b = createTidings({ storage, clock, environmentId: 'env-b', organizationId: 'org' });
  const app = createHttpApp({ environments: [{ tidings: a, apiKeys: [KEY_A] }, { tidings: b, apiKeys: [KEY_B] }], bodyLimit: 64 * 1024 });
  await a.workflows.upsert({
    name: 'Welcome',
    triggers: [{ identifier: 'welcome' }],
    steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}', cta: { action: { buttons: [{ type: 'primary', content: 'OK' }] } } } }],
  });
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = KEY_A) =>
    app.request(path, {
      method,
      headers: { authorization: `ApiKey ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return { storage, clock, a, b, app, request };
}

/** The same app over a real socket on 127.0.0.1, on a free port. */
export async function listen(app: ReturnType<typeof createHttpApp>) {
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * One environment's engine on `storage`, its HTTP app with the Inbox sockets on a real port of
 * 127.0.0.1. `close()` stops the sockets, the server and the storage.
 */
export async function serveEngine(storage: Storage, apiKey: string, applicationIdentifier: string) {
  const tidings = createTidings({ storage });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [apiKey], applicationIdentifier }] });
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const sockets = app.attachInboxSockets(server as unknown as HttpServer);
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const close = async () => {
    await sockets.close();
    (server as unknown as HttpServer).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage.close();
  };
  return { tidings, url, close };
}

/**
 * One GET on a connection of its own: a kept-alive connection the server closes as idle just as the
 * next request goes out is reset, which says nothing about whether the server answers.
 */
function askOnce(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`${url} answered ${response.statusCode}`))));
    });
    request.on('error', reject);
  });
}

/** How the server answered while some work of the test was in flight (see `whileProbing`). */
export interface HealthWhile {
  /** How long the work was in flight, in ms. */
  readonly ms: number;
  /** `/health/live` answers that came while it was. */
  readonly answers: number;
  /** The slowest of the asks that overlapped it, in ms from the ask to the answer. */
  readonly slowest: number;
  /**
   * The longest stretch, in ms, in which this process's event loop did not turn while the work was
   * in flight: during it no client of the server (the probe or any other) could be answered.
   */
  readonly longestHold: number;
}

/**
 * Runs `work` while asking `/health/live` one request after another, and watches the event loop the
 * server runs on (this process's: a timer that should fire every millisecond).
 *
 * Assert `longestHold` against `ms`, not an answer count or a latency: the first answer always
 * comes, however late, and an ask made just after the loop was taken only starts once it is given
 * back, so the slowest answer can miss a hold altogether. A call that holds the loop from start to end
 * holds it for nearly all of `ms`; one that lets the loop turn between pieces of its work holds it
 * for one piece. Both figures grow with a slower or busier machine, so their ratio does not depend on
 * its speed.
 */
export async function whileProbing<T>(url: string, work: () => Promise<T>): Promise<{ result: T; health: HealthWhile }> {
  const asks: { asked: number; answered: number }[] = [];
  const turns: number[] = [];
  const watch = setInterval(() => turns.push(performance.now()), 1);
  let running = true;
  const probing = (async () => {
    while (running) {
      const asked = performance.now();
      await askOnce(`${url}/health/live`);
      asks.push({ asked, answered: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  // A failed ask fails the call, from the `finally` below (the rejection is not left unhandled meanwhile).
  probing.catch(() => undefined);
  try {
    // The server answers before the work starts.
    while (asks.length === 0) await Promise.race([probing, new Promise((resolve) => setTimeout(resolve, 1))]);
    const started = performance.now();
    const result = await work();
    const ended = performance.now();
    const during = asks.filter((a) => a.answered > started);
    const edges = [started, ...turns.filter((t) => t > started && t < ended), ended];
    const longestHold = Math.max(...edges.slice(1).map((t, i) => t - edges[i]!));
    return { result, health: { ms: ended - started, answers: during.filter((a) => a.answered < ended).length, slowest: Math.max(0, ...during.map((a) => a.answered - a.asked)), longestHold } };
  } finally {
    clearInterval(watch);
    running = false;
    await probing;
  }
}

/**
 * The server kept answering while the work ran: the work never held the event loop for two thirds of
 * its own duration. Work done in one go, without letting the loop turn, holds it for nearly all of it
 * (0.95 and more, measured); work that lets it turn between pieces, for one piece (under 0.45 with
 * both cores busy). Two times of the same run, so a slow or busy machine neither passes nor fails
 * it; the margin takes a stall of the whole process (a GC, a starved CPU) on top of a piece.
 */
export function expectAnsweredThroughout(health: HealthWhile, what: string): void {
  const seen = `${what}: the loop held at most ${health.longestHold.toFixed(0)} ms of the work's ${health.ms.toFixed(0)} ms; /health/live answered ${health.answers} times meanwhile, the slowest in ${health.slowest.toFixed(0)} ms`;
  console.info(seen);
  expect(health.longestHold, seen).toBeLessThan((health.ms * 2) / 3);
}
