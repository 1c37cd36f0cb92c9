/**
 * "Mark all as read" over 20,000 messages with Novu's Inbox socket open: one click is one burst of
 * live work (a bounded number of frames and count queries), the server keeps answering while it runs,
 * and failures are logged once per burst, not once per message. On SQLite and on Postgres.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage, Tidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { freshSchemas } from '../../postgres/test/schemas.js';
import { issueToken } from '../src/inbox/session.js';
import { probeHealth, serveEngine } from './helpers.js';

const MESSAGES = 20_000;
const KEY = 'bulk-live-key';
const APP = 'app-bulk-live';
const pgUrl = process.env['TIDINGS_TEST_PG_URL'];
const pgSchema = freshSchemas(pgUrl, 'tidings_bulk_live');
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start(storage: Storage) {
  const served = await serveEngine(storage, KEY, APP);
  closers.push(served.close);
  return served;
}

/** Ada's 20,000 unread in-app messages, 100 events a call. */
async function seed(tidings: Tidings) {
  await tidings.workflows.upsert({ name: 'Ping', triggers: [{ identifier: 'ping' }], steps: [{ template: { type: 'in_app', content: 'Ping {{ payload.n }}' } }] });
  await tidings.subscribers.upsert({ subscriberId: 'ada' });
  for (let call = 0; call < MESSAGES / 100; call++) {
    await tidings.triggerBulk(Array.from({ length: 100 }, (_, i) => ({ name: 'ping', to: 'ada', payload: { n: call * 100 + i } })));
  }
}

/** A plain WebSocket of Novu's client (`socketType: 'cloud'`): every frame it hears. */
async function openSocket(url: string, token: string) {
  const frames: { event: string; data: Record<string, unknown> }[] = [];
  const ws = new WebSocket(`${url.replace('http', 'ws')}/?token=${encodeURIComponent(token)}`);
  ws.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as (typeof frames)[number]));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  closers.push(async () => ws.close());
  return frames;
}

/** Seeds Ada's messages and, where a relay carries them between processes, waits until it has delivered the notice of each. */
async function seedQuietly(storage: Storage, tidings: Tidings) {
  // The relay's channel is shared with other tests' databases: only the ids of these messages count.
  const heard = new Set<string>();
  const stop = storage.live?.subscribe((notice) => {
    if (notice.kind === 'created') heard.add(notice.messageId);
  });
  await seed(tidings);
  if (stop) {
    const ada = (await tidings.subscribers.get('ada'))!;
    const ids = await storage.messages.idsMatching(tidings.environmentId, ada._id, { now: new Date().toISOString() });
    expect(ids).toHaveLength(MESSAGES);
    // Notices of the seed still on their way would reach the socket opened next as new messages.
    await expect.poll(() => ids.every((id) => heard.has(id)), { timeout: 120_000, interval: 100 }).toBe(true);
    stop();
  }
}

async function markAllRead(storage: Storage) {
  const { tidings, url } = await start(storage);
  await seedQuietly(storage, tidings);
  const token = issueToken({ tidings, applicationIdentifier: APP, apiKey: KEY }, 'ada', Date.now() + 3_600_000);
  const frames = await openSocket(url, token);
  const errors = vi.spyOn(console, 'error');
  const stopProbe = probeHealth(url);
  const response = await fetch(`${url}/v1/inbox/notifications/read`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  expect(response.status).toBeLessThan(300);
  await expect.poll(() => frames.find((f) => f.event === 'unread_count_changed' && f.data['unreadCount'] === 0), { timeout: 60_000, interval: 20 }).toBeTruthy();
  const health = await stopProbe();
  errors.mockRestore();
  return { frames, health, errorLines: errors.mock.calls.length, counts: await tidings.messages.counts('ada') };
}

describe('"mark all as read" of 20,000 messages with the Inbox socket open', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-bulk-live-'));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));

  it('on SQLite: one pair of count frames, the server answering throughout', { timeout: 240_000 }, async () => {
    const { frames, health, errorLines, counts } = await markAllRead(sqliteStorage({ filename: join(dir, 'bulk.db') }));
    expect(counts).toEqual({ total: MESSAGES, unread: 0, unseen: 0 });
    // One burst: the unseen and unread counts, each once (a second pair at most if the burst was split across ticks).
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.length).toBeLessThanOrEqual(4);
    expect(frames.every((f) => f.event === 'unseen_count_changed' || f.event === 'unread_count_changed')).toBe(true);
    expect(health.answers).toBeGreaterThan(0);
    expect(errorLines).toBe(0);
    console.info(`SQLite: ${frames.length} frames, /health/live slowest ${health.slowest.toFixed(0)} ms over ${health.answers} answers`);
  });

  it.skipIf(!pgUrl)('on Postgres: the relay’s 20,000 notices are one burst, no pool exhaustion, no log lines', { timeout: 240_000 }, async () => {
    const storage = postgresStorage({ connectionString: pgUrl!, schema: pgSchema(), max: 4, onConnectionError: () => undefined });
    const { frames, health, errorLines, counts } = await markAllRead(storage);
    expect(counts).toEqual({ total: MESSAGES, unread: 0, unseen: 0 });
    // The notices arrive in NOTIFY payloads of ~90 ids, read over several ticks: bursts, not frames per message.
    expect(frames.length).toBeLessThanOrEqual(40);
    expect(frames.every((f) => f.event === 'unseen_count_changed' || f.event === 'unread_count_changed')).toBe(true);
    expect(errorLines).toBe(0);
    console.info(`Postgres: ${frames.length} frames, /health/live slowest ${health.slowest.toFixed(0)} ms over ${health.answers} answers`);
  });
});
