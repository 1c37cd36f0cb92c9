/**
 * What a scrape of `/metrics` costs and who may make it: the storage gauges are counted at most once
 * per 5 s and never twice at once, however many scrapers come (counted by a storage wrapper, with the
 * window's time faked, never measured); with a token, a scrape without it is a 401 that counts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings, type Storage } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { readArguments } from '../src/cli.js';
import { createHttpApp } from '@tidings/http';
import { prometheusMetrics } from '../src/prometheus-metrics.js';
import { serve } from '../src/serve.js';
import { eventually } from '../../http/test/eventually.js';

const KEY = 'tid_metrics_scrape_key';
const TOKEN = 'metrics-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'tidings-metrics-scrape-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

/** Memory storage whose two counting methods count their calls; `hold()` keeps the next counts of jobs waiting until released. */
function countedStorage() {
  const base = memoryStorage();
  const calls = { countByKind: 0, countOpen: 0 };
  let gate: Promise<void> = Promise.resolve();
  let failing = false;
  const storage: Storage = {
    ...base,
    jobs: {
      ...base.jobs,
      async countByKind(env) {
        calls.countByKind++;
        await gate;
        if (failing) throw new Error('the count failed');
        return base.jobs.countByKind(env);
      },
    },
    digests: {
      ...base.digests,
      async countOpen(env) {
        calls.countOpen++;
        return base.digests.countOpen(env);
      },
    },
  };
  return {
    storage,
    calls,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    fail(on: boolean) {
      failing = on;
    },
  };
}

async function metricsApp(token?: string) {
  const counted = countedStorage();
  const errors: unknown[] = [];
  const metrics = prometheusMetrics();
  const tidings = createTidings({ storage: counted.storage, meterProvider: metrics.meterProvider, onError: (error) => void errors.push(error) });
  const app = createHttpApp({ environments: [{ tidings, apiKeys: [KEY] }], metrics: { prometheus: metrics, ...(token !== undefined && { token }) } });
  await tidings.workflows.upsert({ name: 'later', triggers: [{ identifier: 'later' }], steps: [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } }, { template: { type: 'in_app', content: 'Later' } }] });
  const scrape = (headers: Record<string, string> = {}) => app.request('/metrics', { headers });
  return { ...counted, errors, tidings, app, scrape, close: () => metrics.shutdown() };
}

const queuedWalks = (text: string) => Number(/^tidings_jobs_queued\{kind="walk"[^}]*\} (\d+)$/m.exec(text)?.[1] ?? NaN);

describe('/metrics — what a scrape costs', () => {
  it('50 concurrent scrapes while a count is in flight start one count of each kind, and all answer with it', async () => {
    const m = await metricsApp();
    try {
      await m.tidings.trigger({ name: 'later', to: 'ann' });
      const release = m.hold();
      const scrapes = Array.from({ length: 50 }, () => m.scrape());
      // Scrapes that reach the collection after the count started join it, however long they take to get there.
      await eventually(async () => (m.calls.countByKind > 0 ? true : undefined), 'the count');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(m.calls).toEqual({ countByKind: 1, countOpen: 1 });
      release();
      const responses = await Promise.all(scrapes);
      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
      for (const response of responses) expect(queuedWalks(await response.text())).toBe(1);
      expect(m.calls).toEqual({ countByKind: 1, countOpen: 1 });
    } finally {
      await m.close();
    }
  });

  it('scrapes within 5 s of a count read it (no count of their own, the old value); the first one after counts once more', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const m = await metricsApp();
    try {
      await m.tidings.trigger({ name: 'later', to: 'ann' });
      expect(queuedWalks(await (await m.scrape()).text())).toBe(1);
      await m.tidings.trigger({ name: 'later', to: 'bob' });
      vi.advanceTimersByTime(4_999);
      const within = await Promise.all(Array.from({ length: 50 }, () => m.scrape()));
      for (const response of within) expect(queuedWalks(await response.text())).toBe(1);
      for (let i = 0; i < 10; i++) expect((await m.scrape()).status).toBe(200);
      expect(m.calls).toEqual({ countByKind: 1, countOpen: 1 });

      vi.advanceTimersByTime(2);
      const after = await Promise.all(Array.from({ length: 50 }, () => m.scrape()));
      for (const response of after) expect(queuedWalks(await response.text())).toBe(2);
      expect(m.calls).toEqual({ countByKind: 2, countOpen: 2 });
    } finally {
      await m.close();
    }
  });

  it('a count that fails is reported once, leaves its gauge out, and is not retried by the scrapes of the next 5 s', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const m = await metricsApp();
    try {
      m.fail(true);
      for (let i = 0; i < 20; i++) {
        const response = await m.scrape();
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).not.toMatch(/^tidings_jobs_queued/m);
        expect(text).toMatch(/^tidings_digests_open\{[^}]*\} 0$/m);
      }
      expect(m.calls.countByKind).toBe(1);
      expect(m.errors).toHaveLength(1);
      m.fail(false);
      vi.advanceTimersByTime(5_001);
      expect(queuedWalks(await (await m.scrape()).text())).toBe(0);
      expect(m.calls.countByKind).toBe(2);
    } finally {
      await m.close();
    }
  });
});

describe('/metrics — who may scrape', () => {
  it('without a token, anyone may scrape (as before; see docs/observability.md)', async () => {
    const m = await metricsApp();
    try {
      expect((await m.scrape()).status).toBe(200);
    } finally {
      await m.close();
    }
  });

  it('with a token, a missing, wrong or other-scheme Authorization is a 401 that counts nothing; the token as Bearer is a 200', async () => {
    const m = await metricsApp(TOKEN);
    try {
      const refused: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: 'Bearer x' },
        { authorization: 'Bearer' },
        { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
        { authorization: `ApiKey ${KEY}` },
        { authorization: `ApiKey ${TOKEN}` },
      ];
      for (const headers of refused) {
        const response = await m.scrape(headers);
        expect(response.status, JSON.stringify(headers)).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect(await response.text()).not.toMatch(/tidings_/);
      }
      expect(m.calls).toEqual({ countByKind: 0, countOpen: 0 });

      const allowed = await m.scrape({ authorization: `Bearer ${TOKEN}` });
      expect(allowed.status).toBe(200);
      expect(queuedWalks(await allowed.text())).toBe(0);
      expect(m.calls).toEqual({ countByKind: 1, countOpen: 1 });
      expect((await m.scrape({ authorization: `bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      await m.close();
    }
  });

  it('a token with a space is refused when the app is made', async () => {
    const metrics = prometheusMetrics();
    const tidings = createTidings({ storage: memoryStorage(), meterProvider: metrics.meterProvider });
    expect(() => createHttpApp({ environments: [{ tidings, apiKeys: [KEY] }], metrics: { prometheus: metrics, token: 'two words' } })).toThrow(/without spaces/);
    expect(() => createHttpApp({ environments: [{ tidings, apiKeys: [KEY] }], metrics: { prometheus: metrics, token: '' } })).toThrow(/non-empty/);
    await metrics.shutdown();
  });

  it('tidings serve --metrics-token (or TIDINGS_METRICS_TOKEN) needs --metrics, and the token is never repeated in a message', () => {
    expect(readArguments(['--metrics', '--metrics-token', TOKEN], {}).options.metrics).toEqual({ token: TOKEN });
    expect(readArguments(['--metrics'], { TIDINGS_METRICS_TOKEN: TOKEN }).options.metrics).toEqual({ token: TOKEN });
    expect(readArguments(['--metrics'], {}).options.metrics).toBe(true);
    expect(() => readArguments(['--metrics-token', TOKEN], {})).toThrow('--metrics-token needs --metrics');
    expect(() => readArguments([], { TIDINGS_METRICS_TOKEN: TOKEN })).toThrow('TIDINGS_METRICS_TOKEN needs --metrics');
    for (const args of [['--metrics', '--metrics-token', `${TOKEN} more`], ['--metrics-token', TOKEN]]) {
      try {
        readArguments(args, {});
        expect.unreachable();
      } catch (error) {
        expect((error as Error).message).not.toContain(TOKEN);
      }
    }
  });

  it('serve({ metrics: { token } }) over a real port: 401 without the token, 200 with it', async () => {
    const server = await serve({ port: 0, db: join(dir, 'token.db'), apiKey: KEY, graceMs: 500, metrics: { token: TOKEN } });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `ApiKey ${KEY}` } })).status).toBe(401);
      const allowed = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toMatch(/^tidings_jobs_queued\{kind="walk"/m);
    } finally {
      await server.close();
    }
  });
});
