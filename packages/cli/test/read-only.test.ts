/**
 * Looking at an app's database: an app on the library writes `.tidings/tidings.db` (the docs' and
 * `tidings serve`'s default file); `tidings serve` on that file is refused at start while the app
 * runs, saying what to do; `--read-only` serves its activity as it happens and refuses changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { readArguments } from '../src/cli.js';
import { serve } from '../src/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-read-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = 'tid_read_only_key';

describe('tidings serve on the database an app writes', () => {
  it('without --read-only it will not start a second writer; with it, the activity list shows the app\u2019s notifications (skips too) as they come, and changes are refused with a 405', async () => {
    const db = join(dir, '.tidings', 'tidings.db');
    const storage = sqliteStorage({ filename: db });
    const app = createTidings({ storage });
    try {
      await app.workflows.upsert({ name: 'News', triggers: [{ identifier: 'news' }], steps: [{ template: { type: 'in_app', content: 'Hi' } }, { template: { type: 'email', subject: 'News', content: 'Hello' } }] });
      await app.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
      await app.preferences.update('ada', { workflowId: 'news', channels: { email: false } });
      const first = await app.trigger({ name: 'news', to: 'ada' });
      await app.runDue();

      await expect(serve({ port: 0, db, apiKey: KEY })).rejects.toThrow(/is in use: another process \(or another storage of this one\) writes it.*tidings serve --read-only/);

      const server = await serve({ port: 0, db, apiKey: KEY, readOnly: true });
      try {
        const get = async (path: string) => {
          const response = await fetch(`${server.url}${path}`, { headers: { authorization: `ApiKey ${KEY}` } });
          return { status: response.status, body: (await response.json()) as { data: { transactionId: string; messages: { channel: string }[]; skipped: { channel: string; reason: string }[] }[] } };
        };
        const listed = await get('/v1/notifications?subscriberIds=ada');
        expect(listed.status).toBe(200);
        expect(listed.body.data).toMatchObject([{ transactionId: first.transactionId, messages: [{ channel: 'in_app' }], skipped: [{ channel: 'email', reason: expect.stringContaining('email') }] }]);
        expect((await fetch(`${server.url}/activity/`)).status).toBe(200);

        // The app goes on writing; the server reads what it commits.
        const second = await app.trigger({ name: 'news', to: 'ada' });
        await app.runDue();
        expect((await get('/v1/notifications?subscriberIds=ada')).body.data.map((item) => item.transactionId)).toEqual([second.transactionId, first.transactionId]);

        const refused = await fetch(`${server.url}/v1/events/trigger`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'news', to: 'ada' }) });
        expect(refused.status).toBe(405);
        expect(refused.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        expect(await refused.json()).toMatchObject({ statusCode: 405, error: 'Method Not Allowed', path: '/v1/events/trigger', message: expect.stringMatching(/^This server only reads its database \(tidings serve --read-only\), which another process writes: send POST \/v1\/events\/trigger to that process$/) });
        expect((await app.activity.list({ subscriberIds: ['ada'] })).items).toHaveLength(2);
        // No job loop here: the app's jobs are the app's to run.
        expect(server.tidings.health().jobLoop.running).toBe(false);
      } finally {
        await server.close();
      }
    } finally {
      await storage.close();
    }
  });

  it('--read-only (or TIDINGS_READ_ONLY) is read from the command line, and refused with Postgres or MySQL', () => {
    expect(readArguments(['--read-only', '--db', 'x.db'], {}).options).toMatchObject({ readOnly: true, db: 'x.db' });
    expect(readArguments([], { TIDINGS_READ_ONLY: 'yes' }).options).toMatchObject({ readOnly: true });
    expect(readArguments([], {}).options.readOnly).toBeUndefined();
    expect(() => readArguments(['--read-only', '--postgres', 'postgres://h/d'], {})).toThrow('--read-only is for a SQLite file another process writes: on Postgres or MySQL, run another tidings serve beside it');
  });
});
