import { request as httpRequest } from 'node:http';
import { createTidings, isTidingsError } from '@tidings/core';
import { MAX_RECIPIENTS_PER_CALL, MAX_RECIPIENTS_PER_EVENT } from '@tidings/core/schemas';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { listen } from './helpers.js';

describe('limits that keep one caller from taking the process down', () => {
  it('a chunked upload with no length is cut at the body limit as it streams in, not buffered whole', { timeout: 60_000 }, async () => {
    const tidings = createTidings({ storage: memoryStorage() });
    const server = await listen(createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }] }));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const goal = 300 * 1024 * 1024;
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    let sent = 0;
    // The server answers 413 and closes while the client is still writing: a client whose next write
    // meets the closed connection sees the reset before it reads the answer, so either ends the upload.
    const outcome = await new Promise<number | string>((resolve) => {
      const req = httpRequest(`${server.url}/v1/events/trigger`, { method: 'POST', headers: { authorization: 'ApiKey k', 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      const pump = () => {
        while (sent < goal) {
          peak = Math.max(peak, process.memoryUsage().rss);
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.write('{"name":"');
      pump();
    });
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(outcome);
    // Cut near the 1 MB limit: far less than the 300 MB the client meant to send was read, and memory stayed flat.
    expect(sent).toBeLessThan(goal);
    expect((peak - before) / 1024 / 1024).toBeLessThan(100);
    await server.close();
  });

  it('recipients per event and per call are capped (larger audiences go through topics)', async () => {
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00Z') });
    await tidings.workflows.upsert({ name: 'W', triggers: [{ identifier: 'w' }], steps: [{ template: { type: 'in_app', content: 'x' } }] });
    const many = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
    const [over] = await tidings.triggerBulk([{ name: 'w', to: many(MAX_RECIPIENTS_PER_EVENT + 1) }]);
    await expect(tidings.trigger({ name: 'w', to: many(MAX_RECIPIENTS_PER_EVENT + 1) })).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: 'to' }] });
    expect(over).toMatchObject({ status: 'error', error: [`to: must hold at most ${MAX_RECIPIENTS_PER_EVENT} recipients (reach larger audiences through a topic)`] });
    expect((await tidings.trigger({ name: 'w', to: many(MAX_RECIPIENTS_PER_EVENT) })).status).toBe('processed');
    const events = Array.from({ length: MAX_RECIPIENTS_PER_CALL / MAX_RECIPIENTS_PER_EVENT + 1 }, () => ({ name: 'w', to: many(MAX_RECIPIENTS_PER_EVENT) }));
    const refused = await tidings.triggerBulk(events).then(() => null, (e: unknown) => e);
    expect(isTidingsError(refused, 'validation_failed')).toBe(true);
    expect((refused as Error).message).toMatch(new RegExp(`events must name at most ${MAX_RECIPIENTS_PER_CALL} recipients in all`));
  });

  it('template bombs: one saved with a literal loop is refused when saved; one fed by the payload stops at its walk\'s render budget and fails that step alone', { timeout: 30_000 }, async () => {
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00Z') });
    const bomb = '{% for a in (1..100000) %}{% for b in (1..100000) %}x{% endfor %}{% endfor %}';
    // Without the render limits these renders would run for hours: the test's timeout is the bound.
    const refused = await tidings.workflows.upsert({ name: 'B', triggers: [{ identifier: 'b' }], steps: [{ template: { type: 'in_app', content: bomb } }] }).then(() => null, (e: unknown) => e);
    expect(isTidingsError(refused, 'validation_failed')).toBe(true);
    expect((refused as { issues: { path: string; message: string }[] }).issues[0]).toMatchObject({ path: 'steps[0].template.content', message: expect.stringMatching(/render limits/) });

    await tidings.workflows.upsert({ name: 'P', triggers: [{ identifier: 'p' }], steps: [{ template: { type: 'in_app', content: '{% for a in (1..payload.n) %}{% for b in (1..payload.n) %}{{ a }}{% endfor %}{% endfor %}' } }, { template: { type: 'in_app', content: 'still here' } }] });
    const result = await tidings.trigger({ name: 'p', to: 'ada', payload: { n: 100_000 } });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(result.transactionId!)).map((m) => m.content)).toEqual(['still here']);
    const entries = (await tidings.explain(result.transactionId!)).flatMap((record) => record.entries);
    // Cut short in a shared batch it runs again alone, where it spends its whole budget and fails.
    expect(entries.filter((e) => e.stepIndex === 0 && e.decision === 'failed')).toEqual([expect.objectContaining({ reason: expect.stringMatching(/template failed to render: ran out of render time: one render took longer than its limit/) })]);
  });
});
