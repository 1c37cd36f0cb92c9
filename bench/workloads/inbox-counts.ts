import { join } from 'node:path';
import { createTidings, type Storage } from '@tidings/core';
import { SEVERITIES } from '@tidings/core/schemas';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { freshName, tempDir } from '../lib/temp.js';
import { percentile } from '../lib/stats.js';
import type { BenchContext, Row } from './types.js';

/** The bell of Novu's Inbox: unread, unarchived, unsnoozed, one filter per severity. */
const BELL = SEVERITIES.map((severity) => ({ read: false, archived: false, snoozed: false, severity }));


/**
 * Workload: the counts Novu's Inbox re-fetches after every action and live event — 4 filters (one per
 * severity) for a subscriber with 10,000 in-app messages, 25 of them read, beside other
 * subscribers' messages.
 */
async function measure(name: string, storage: Storage, ctx: BenchContext): Promise<Row[]> {
  const messages = ctx.quick ? 2_000 : 10_000;
  const calls = ctx.quick ? 50 : 300;
  const tidings = createTidings({ storage });
  for (const severity of SEVERITIES) {
    await tidings.workflows.upsert({ name: severity, triggers: [{ identifier: `w-${severity}` }], severity, steps: [{ template: { type: 'in_app', content: 'x {{ payload.i }}' } }] });
  }
  for (let i = 0; i < messages; i += 100) {
    await tidings.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: `w-${SEVERITIES[(i + k) % 4]}`, to: (i + k) % 10 === 0 ? ['reader', `other-${k}`] : 'reader', payload: { i: i + k } })));
  }
  const { items } = await tidings.messages.feed('reader', { limit: 100 });
  await tidings.messages.markAs('reader', { messageId: items.slice(0, 25).map((m) => m._id), markAs: 'read' });
  for (let i = 0; i < 10; i++) await tidings.messages.count('reader', BELL);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await tidings.messages.count('reader', BELL);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const total = (await tidings.messages.count('reader', [{}]))[0]!.count;
  ctx.log(`  inbox counts, ${name}: ${total} messages, 4 filters p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`);
  return [
    { workload: `Inbox bell counts (4 filters) for a subscriber with ${total.toLocaleString('en')} messages, ${name}, p50`, backend: name.toLowerCase(), unit: 'ms', value: percentile(times, 50), spread: 0, runs: calls },
    { workload: `Inbox bell counts (4 filters), ${name}, p99`, backend: name.toLowerCase(), unit: 'ms', value: percentile(times, 99), spread: 0, runs: calls },
  ];
}

export async function inboxCountsWorkload(ctx: BenchContext): Promise<Row[]> {
  const sqlite = sqliteStorage({ filename: join(tempDir('inbox'), `${freshName('inbox')}.db`) });
  const rows = await measure('SQLite', sqlite, ctx);
  await sqlite.close();
  if (ctx.pgUrl) {
    const schema = freshName('inbox');
    const pg = postgresStorage({ connectionString: ctx.pgUrl, schema });
    rows.push(...(await measure('Postgres', pg, ctx)));
    await pg.close();
  } else ctx.log('  inbox counts on Postgres skipped: set TIDINGS_TEST_PG_URL to include it');
  return rows;
}
