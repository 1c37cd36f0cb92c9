import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Novu } from '@novu/api';
import { Novu as NovuNode } from '@novu/node';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { serve } from '../../cli/src/serve.js';

/**
 * A `tidings serve` on SQLite made afresh for each test of the file, with both of Novu's SDKs
 * pointed at it (`@novu/api` without retries, `@novu/node`) and plain HTTP with the API key. Read its
 * members inside a test.
 */
export function sdkServer(name: string, key: string) {
  const dir = mkdtempSync(join(tmpdir(), `tidings-${name}-`));
  let count = 0;
  let current: { server: Awaited<ReturnType<typeof serve>>; novu: Novu; legacy: NovuNode } | null = null;
  beforeEach(async () => {
    const server = await serve({ port: 0, db: join(dir, `${name}-${++count}.db`), apiKey: key, graceMs: 500 });
    current = { server, novu: new Novu({ secretKey: key, serverURL: server.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 }), legacy: new NovuNode(key, { backendUrl: server.url }) };
  });
  afterEach(async () => {
    await current?.server.close();
    current = null;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const now = () => {
    if (!current) throw new Error('the SDK server is only there inside a test');
    return current;
  };
  return {
    get server() {
      return now().server;
    },
    get novu() {
      return now().novu;
    },
    get legacy() {
      return now().legacy;
    },
    /** Plain HTTP with the API key: status, headers and the parsed body. */
    async http(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const response = await fetch(`${now().server.url}${path}`, {
        method,
        headers: { authorization: `ApiKey ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as any };
    },
  };
}

/** The error a call that must fail failed with (a call that succeeds fails the test). */
export const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
