/**
 * Payloads that choose their own cost: a template that loops over payload values, and a `LIKE`
 * filter whose pattern the payload renders, each triggered for 1,000 recipients over HTTP on SQLite.
 * The trigger answers, the steps fail or skip with the reason, and the server keeps answering
 * `/health/live` while it runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStorage } from '@tidings/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { HOPELESS_AFTER } from '@tidings/core/internal';
import { expectAnsweredThroughout, serveEngine, whileProbing } from './helpers.js';

const KEY = 'hostile-key';
const dir = mkdtempSync(join(tmpdir(), 'tidings-hostile-'));
const to = Array.from({ length: 1_000 }, (_, i) => `s${i}`);
let served: Awaited<ReturnType<typeof serveEngine>>;

afterAll(async () => {
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function triggerWhileProbing(body: unknown) {
  served ??= await serveEngine(sqliteStorage({ filename: join(dir, 'hostile.db') }), KEY, 'app-hostile');
  const { result: response, health } = await whileProbing(served.url, () => fetch(`${served.url}/v1/events/trigger`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  return { status: response.status, health };
}

describe('a payload cannot buy the server’s time', () => {
  it('a template looping over payload values, for 1,000 recipients: the trigger answers while the server does; each walk fails that step, and after it ran out of render time alone for three recipients the rest fail without rendering', { timeout: 120_000 }, async () => {
    served ??= await serveEngine(sqliteStorage({ filename: join(dir, 'hostile.db') }), KEY, 'app-hostile');
    await served.tidings.workflows.upsert({ name: 'Loop', triggers: [{ identifier: 'loop' }], steps: [{ template: { type: 'in_app', content: '{% for x in payload.items %}{% for y in payload.items %}{{ x }}{{ y }}{% endfor %}{% endfor %}' } }] });
    const { status, health } = await triggerWhileProbing({ name: 'loop', to, payload: { items: Array.from({ length: 3_000 }, (_, i) => i) }, transactionId: 'loop-1' });
    expect(status).toBe(201);
    expectAnsweredThroughout(health, 'template loop × 1,000');
    const { result: ran, health: running } = await whileProbing(served.url, () => served.tidings.runDue());
    expect(ran).toBeGreaterThanOrEqual(1_000);
    expectAnsweredThroughout(running, 'the jobs of template loop × 1,000');
    const failed = (await served.tidings.explain('loop-1')).flatMap((record) => record.entries.filter((e) => e.decision === 'failed').map((e) => ({ subscriberId: record.subscriberId, reason: e.reason })));
    expect(new Set(failed.map((f) => f.subscriberId)).size).toBe(1_000);
    expect(failed).toHaveLength(1_000);
    expect(failed.filter((f) => /ran out of render time: /.test(f.reason)).length).toBeLessThanOrEqual(HOPELESS_AFTER);
    expect(failed.filter((f) => /not rendered again for the others/.test(f.reason)).length).toBeGreaterThanOrEqual(1_000 - HOPELESS_AFTER);
    expect(await served.tidings.messages.byTransaction('loop-1')).toEqual([]);
  });

  it('a LIKE pattern chosen by the payload, for 1,000 recipients: literal, linear, the server answering', { timeout: 120_000 }, async () => {
    served ??= await serveEngine(sqliteStorage({ filename: join(dir, 'hostile.db') }), KEY, 'app-hostile');
    const filters = [{ value: 'AND' as const, children: [{ on: 'payload' as const, field: 'text', operator: 'LIKE' as const, value: '{{ payload.p }}' }] }];
    await served.tidings.workflows.upsert({ name: 'Like', triggers: [{ identifier: 'like' }], steps: [{ template: { type: 'in_app', content: 'matched' }, filters }] });
    // The pattern that held the server for 25.5 s in one trigger, against a 10,000-character field.
    const payload = { p: '%a%a%a%a%a%a%b', text: 'a'.repeat(10_000) };
    const { status, health } = await triggerWhileProbing({ name: 'like', to, payload, transactionId: 'like-1' });
    expect(status).toBe(201);
    expectAnsweredThroughout(health, 'payload LIKE pattern × 1,000');
    const trace = await served.tidings.explain('like-1');
    expect(trace).toHaveLength(1_000);
    expect(trace.every((record) => record.entries[0]!.decision === 'skipped' && record.entries[0]!.failedFilter?.expected === '\\%a\\%a\\%a\\%a\\%a\\%a\\%b')).toBe(true);
  });
});
