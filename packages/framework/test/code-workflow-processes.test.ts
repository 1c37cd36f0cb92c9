/**
 * A code workflow across processes on Postgres: a worker killed with SIGKILL during the delay, and
 * another that picks the walks up, replaying the stored result of the step the dead one ran.
 */
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { freshSchemas } from '../../postgres/test/schemas.js';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { stamped } from './fixtures/pid-workflow.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const WORKER = 'packages/framework/test/fixtures/code-worker.ts';
afterEach(killSpawned);

describe.skipIf(!url)('code workflows on Postgres, many processes', () => {
  const schemaName = freshSchemas(url, 'tidings_codeproc');

  it('a worker killed by SIGKILL during a delay: another resumes every walk, each message once, the custom step not run again', async () => {
    const schema = schemaName();
    const storage = postgresStorage({ connectionString: url!, schema });
    const tidings = createTidings({ storage, workflows: [stamped] });
    const subscribers = Array.from({ length: 20 }, (_, i) => `s${i}`);
    expect((await tidings.triggerBulk(subscribers.map((to) => ({ name: 'stamped', to })))).every((r) => r.status === 'processed')).toBe(true);

    const doomed = spawnTs(WORKER, [url!, schema]);
    await waitForOutput(doomed, 'READY');
    const doomedPid = Number(/READY (\d+)/.exec(doomed.output())![1]);
    const contents = async () => (await Promise.all(subscribers.map(async (s) => (await tidings.messages.feed(s)).items.map((m) => String(m.content))))).flat();
    // Every walk reached the delay: its first message is stored.
    await expect.poll(async () => (await contents()).filter((c) => c.startsWith('first')).length, { timeout: 60_000, interval: 100 }).toBe(20);
    doomed.kill('SIGKILL');
    await doomed.exited;

    // The survivor lives an hour ahead: the walks' delays are due for it, never for the doomed worker.
    const survivor = spawnTs(WORKER, [url!, schema, String(3_600_000 + 60_000)]);
    await waitForOutput(survivor, 'READY');
    const survivorPid = Number(/READY (\d+)/.exec(survivor.output())![1]);
    await expect.poll(async () => (await contents()).length, { timeout: 60_000, interval: 100 }).toBe(40);
    const all = await contents();
    expect(all.filter((c) => c === `first by ${doomedPid}`)).toHaveLength(20);
    // The second step ran in the survivor, with the result the doomed worker's custom step stored.
    expect(all.filter((c) => c === `second, stamped by ${doomedPid}, sent by ${survivorPid}`)).toHaveLength(20);
    survivor.kill('SIGTERM');
    await survivor.exited;
    expect(await storage.jobs.list('default')).toEqual([]);
    await storage.close();
  }, 180_000);
});
