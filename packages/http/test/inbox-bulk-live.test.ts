/**
 * "Mark all as read" over 20,000 messages with Novu's Inbox socket open: one click is one burst of
 * live work (a bounded number of frames and count queries), the server keeps answering while it runs,
 * and failures are logged once per burst, not once per message. On SQLite and on Postgres.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage, Tidings } from '@tidings/core';
import { fixtures } from '@tidings/core/testing';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { freshSchemas } from '../../postgres/test/schemas.js';
import { issueToken } from '../src/inbox/session.js';
import { expectAnsweredThroughout, serveEngine, whileProbing } from './helpers.js';

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

/**
 * Ada's 20,000 unread in-app messages, written straight through the Storage port in chunks: what is
 * tested is marking them read, and seeding them through triggers (and, on Postgres, waiting for the
 * relay's notice of each) was most of this file's time.
 */
async function seed(storage: Storage, tidings: Tidings) {
  const ada = await tidings.subscribers.upsert({ subscriberId: 'ada' });
  const start = Date.parse('2026-06-01T12:00:00.000Z');
  for (let from = 0; from < MESSAGES; from += 1_000) {
    const chunk = Array.from({ length: 1_000 }, (_, i) => {
      const at = new Date(start + from + i).toISOString();
      return fixtures.messageRecord(tidings.environmentId, ada, { _id: `m-${from + i}`, transactionId: `tx-${from + i}`, content: `Ping ${from + i}`, createdAt: at, deliveredAt: [at] });
    });
    await storage.messages.insertMany(tidings.environmentId, chunk);
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

async function markAllRead(storage: Storage) {
  const { tidings, url } = await start(storage);
  await seed(storage, tidings);
  const token = issueToken({ tidings, applicationIdentifier: APP, apiKey: KEY }, 'ada', Date.now() + 3_600_000);
  const frames = await openSocket(url, token);
  const errors = vi.spyOn(console, 'error');
  // The work probed: the click's request, and the live burst it makes, up to the frame saying 0 unread.
  const { health } = await whileProbing(url, async () => {
    const response = await fetch(`${url}/v1/inbox/notifications/read`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBeLessThan(300);
    await expect.poll(() => frames.find((f) => f.event === 'unread_count_changed' && f.data['unreadCount'] === 0), { timeout: 60_000, interval: 20 }).toBeTruthy();
  });
  errors.mockRestore();
  return { frames, health, errorLines: errors.mock.calls.length, counts: await tidings.messages.counts('ada') };
}

describe('"mark all as read" of 20,000 messages with the Inbox socket open', () => {
  it('on SQLite: one pair of count frames, the server answering throughout', { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-bulk-live-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const { frames, health, errorLines, counts } = await markAllRead(sqliteStorage({ filename: join(dir, 'bulk.db') }));
    expect(counts).toEqual({ total: MESSAGES, unread: 0, unseen: 0 });
    // One burst: the unseen and unread counts, each once (a second pair at most if the burst was split across ticks).
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.length).toBeLessThanOrEqual(4);
    expect(frames.every((f) => f.event === 'unseen_count_changed' || f.event === 'unread_count_changed')).toBe(true);
    expect(errorLines).toBe(0);
    console.info(`SQLite: ${frames.length} frames`);
    expectAnsweredThroughout(health, 'SQLite');
  });

  it.skipIf(!pgUrl)('on Postgres: the relay’s 20,000 notices are one burst, no pool exhaustion, no log lines', { timeout: 240_000 }, async () => {
    const storage = postgresStorage({ connectionString: pgUrl!, schema: pgSchema(), max: 4, onConnectionError: () => undefined });
    const { frames, health, errorLines, counts } = await markAllRead(storage);
    expect(counts).toEqual({ total: MESSAGES, unread: 0, unseen: 0 });
    // The notices arrive in NOTIFY payloads of ~90 ids, read over several ticks: bursts, not frames per message.
    expect(frames.length).toBeLessThanOrEqual(40);
    expect(frames.every((f) => f.event === 'unseen_count_changed' || f.event === 'unread_count_changed')).toBe(true);
    expect(errorLines).toBe(0);
    console.info(`Postgres: ${frames.length} frames`);
    expectAnsweredThroughout(health, 'Postgres');
  });
});
