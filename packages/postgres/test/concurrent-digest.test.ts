import { createTidings, type Provider } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!url)('postgres — two workers, a short lease and slow providers', () => {
  const schema = freshSchemas(url, 'tidings_cd')();

  it('every event reaches one digest, flushed once; no job runs its effects twice', { timeout: 120_000 }, async () => {
    const EVENTS = 200;
    const sends = new Map<string, number>();
    // Each send outlasts the 200 ms lease: without renewal the other worker would take the job.
    const slow: Provider = {
      id: 'slow-mail',
      channel: 'email',
      async send(message) {
        sends.set(message.messageId, (sends.get(message.messageId) ?? 0) + 1);
        await pause(350);
        return {};
      },
    };
    const storages = [postgresStorage({ connectionString: url!, schema, max: 6 }), postgresStorage({ connectionString: url!, schema, max: 6 })];
    const workers = storages.map((storage) => createTidings({ storage, leaseMs: 200, providers: [slow], maxIdleMs: 50, onError: () => undefined }));
    const [a] = workers;
    await a!.integrations.upsert({ name: 'Mail', providerId: 'slow-mail', channel: 'email', primary: true });
    await a!.workflows.upsert({
      name: 'digest',
      triggers: [{ identifier: 'digest' }],
      steps: [
        { template: { type: 'email', subject: 'n', content: 'event {{ payload.i }}' } },
        { template: { type: 'digest' }, metadata: { type: 'regular', amount: 2, unit: 'seconds' } },
        { template: { type: 'in_app', content: '{{ step.total_count }} events' } },
      ],
    });
    await a!.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
    for (const w of workers) w.start();
    for (let i = 0; i < EVENTS; i += 100) {
      await a!.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: 'digest', to: 'ada', payload: { i: i + k } })));
    }
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const pending = await a!.pending();
      if (pending.jobs.length === 0 && pending.digests.length === 0) break;
      await pause(200);
    }
    await Promise.all(workers.map((w) => w.stop()));
    const feed = await a!.messages.feed('ada', { channel: 'in_app', limit: 100 });
    const emails = await a!.messages.feed('ada', { channel: 'email', limit: 100 });
    expect(feed.items.map((m) => m.content)).toEqual([`${EVENTS} events`]);
    expect(await a!.pending()).toEqual({ jobs: [], digests: [] });
    // Every email stored once; the provider got each message id at least once (at-least-once delivery).
    let stored = emails.items.length;
    for (let cursor = emails.nextCursor; cursor; ) {
      const page = await a!.messages.feed('ada', { channel: 'email', limit: 100, cursor });
      stored += page.items.length;
      cursor = page.nextCursor;
    }
    expect(stored).toBe(EVENTS);
    expect(sends.size).toBe(EVENTS);
    await Promise.all(storages.map((s) => s.close()));
  });
});
