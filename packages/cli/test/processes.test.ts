/**
 * Several `tidings serve` processes on one Postgres database behave as one server: live clients on
 * one hear what another delivered, an idempotency key holds across them, digests joined from both
 * are one, and a process killed under load loses nothing acknowledged and repeats nothing.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Novu } from '@novu/js';
import { postgresStorage } from '@tidings/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSchemas } from '../../postgres/test/schemas.js';
import { spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { openSse } from '../../../test-support/sse-client.js';

const url = process.env['TIDINGS_TEST_PG_URL'];
const schemaName = freshSchemas(url, 'tidings_procs');
const KEY = 'procs-key';
const APP = 'app-procs';

type Served = ReturnType<typeof spawnTs> & { url: string };
const running: Served[] = [];
afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(running.map((child) => child.exited));
});

/** Starts `tidings serve` on Postgres (one schema per test) and resolves once it listens. */
async function serveProcess(schema: string, extra: string[] = []): Promise<Served> {
  const child = spawnTs('packages/cli/src/cli.ts', ['serve', '--port', '0', '--postgres', url!, '--schema', schema, '--api-key', KEY, '--application-identifier', APP, ...extra]);
  running.push(child as Served);
  await waitForOutput(child, 'Application identifier', 60_000);
  return Object.assign(child, { url: /listening on (http:\/\/\S+)/.exec(child.output())![1]! });
}

/** One request on a fresh connection (a cluster's primary hands each connection to the next process). */
function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(`${base}${path}`, { method, agent: false, headers: { authorization: `ApiKey ${KEY}`, ...(payload && { 'content-type': 'application/json' }), ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const workflow = (identifier: string, steps: unknown[], extra: Record<string, unknown> = {}) => ({ name: identifier, triggers: [{ identifier }], steps, ...extra });
const inApp = (content: string) => ({ template: { type: 'in_app', content } });

async function created(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 201) throw new Error(`expected 201, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** The stored messages of a schema, read past the engine and its processes: transaction, content, subscriber. */
async function storedMessages(schema: string): Promise<{ transaction_id: string; content: string; subscriber_id: string }[]> {
  const storage = postgresStorage({ connectionString: url!, schema, max: 1, migrate: false });
  try {
    const rows = await storage.db
      .selectFrom('tidings_messages as m')
      .innerJoin('tidings_subscribers as s', (join) => join.onRef('s.env', '=', 'm.env').onRef('s.id', '=', 'm.subscriber_internal_id'))
      .select(['m.transaction_id', 'm.doc', 's.subscriber_id'])
      .execute();
    return rows.map((row) => ({ transaction_id: row.transaction_id, subscriber_id: row.subscriber_id, content: (row.doc as { content: string }).content }));
  } finally {
    await storage.close();
  }
}

/**
 * The work still stored for the subscribers `which` keeps: their jobs (due, waiting or leased, as a
 * job row stays until the commit that stores its effects deletes it) and their open digests. With
 * no call in flight and none of these left, nothing more can be stored for them.
 */
async function workLeft(schema: string, which: (subscriberId: string) => boolean): Promise<{ jobs: number; openDigests: number }> {
  const storage = postgresStorage({ connectionString: url!, schema, max: 1, migrate: false });
  try {
    const jobs = await storage.db.selectFrom('tidings_jobs').select('subscriber_id').execute();
    const digests = await storage.db.selectFrom('tidings_digests').select('subscriber_id').where('status', '=', 'open').execute();
    return { jobs: jobs.filter((row) => which(row.subscriber_id)).length, openDigests: digests.filter((row) => which(row.subscriber_id)).length };
  } finally {
    await storage.close();
  }
}

describe.skipIf(!url)('two tidings serve processes on one Postgres database', () => {
  // Started in a hook, not in this body: Vitest runs a skipped describe's body to collect its tests,
  // so a start here would spawn `serve --postgres undefined` on every run without the variable.
  let pair: { schema: string; a: Served; b: Served };
  beforeAll(async () => {
    const schema = schemaName();
    const [a, b] = await Promise.all([serveProcess(schema), serveProcess(schema)]);
    pair = { schema, a, b };
  }, 130_000);

  it('a live client on process A receives what was triggered through B, with the unread count right (SSE and @novu/js)', { timeout: 90_000 }, async () => {
    const { a, b } = pair;
    await created(call(b.url, 'POST', '/v1/workflows', workflow('hello', [inApp('Hello {{ payload.n }}')], { severity: 'high' })));
    await created(call(b.url, 'POST', '/v1/subscribers', { subscriberId: 'ada' }));
    const sse = await openSse(a.url, 'ada', KEY);
    await expect.poll(() => sse.last('counts')).toEqual({ total: 0, unread: 0, unseen: 0 });

    const novu = new Novu({ applicationIdentifier: APP, subscriber: 'ada', subscriberHash: createHmac('sha256', KEY).update('ada').digest('hex'), apiUrl: a.url, socketUrl: a.url });
    const connected = new Promise<void>((resolve) => novu.on('socket.connect.resolved', () => resolve()));
    const received: { body: string; at: number }[] = [];
    const unread: unknown[] = [];
    novu.on('notifications.notification_received', ({ result }) => received.push({ body: (result as { body: string }).body, at: Date.now() }));
    novu.on('notifications.unread_count_changed', ({ result }) => unread.push(result));
    await novu.notifications.list();
    await connected;

    for (const n of [1, 2]) {
      await created(call(b.url, 'POST', '/v1/events/trigger', { name: 'hello', to: 'ada', payload: { n } }));
      await expect.poll(() => sse.events.find((e) => e.event === 'message' && (e.data as { content: string }).content === `Hello ${n}`), { timeout: 15_000 }).toBeTruthy();
      await expect.poll(() => received.find((r) => r.body === `Hello ${n}`), { timeout: 15_000 }).toBeTruthy();
      await expect.poll(() => sse.last('counts'), { timeout: 15_000 }).toEqual({ total: n, unread: n, unseen: n });
    }
    await expect.poll(() => unread.at(-1), { timeout: 15_000 }).toMatchObject({ total: 2, severity: { high: 2 } });
    sse.close();
    novu.socket?.disconnect?.();
  });

  it('one idempotency key sent to both processes at once: one execution; the other request is a 409 or a replay', { timeout: 90_000 }, async () => {
    const { a, b } = pair;
    await created(call(a.url, 'POST', '/v1/workflows', workflow('keyed', [inApp('Once {{ payload.k }}')])));
    const statuses: number[][] = [];
    for (let k = 0; k < 8; k++) {
      const body = { name: 'keyed', to: `keyed-${k}`, payload: { k } };
      const headers = { 'idempotency-key': `key-${k}` };
      const answers = await Promise.all([call(a.url, 'POST', '/v1/events/trigger', body, headers), call(b.url, 'POST', '/v1/events/trigger', body, headers)]);
      statuses.push(answers.map((r) => r.status).sort());
      const done = answers.filter((r) => r.status === 201);
      expect(done.length).toBeGreaterThanOrEqual(1);
      // A replay answers what the first answered.
      if (done.length === 2) expect(done[0]!.body.data.transactionId).toBe(done[1]!.body.data.transactionId);
      else expect(answers.find((r) => r.status !== 201)).toMatchObject({ status: 409 });
    }
    for (const pairOfStatuses of statuses) expect([[201, 201], [201, 409]]).toContainEqual(pairOfStatuses);
    await expect
      .poll(async () => {
        const rows = (await storedMessages(pair.schema)).filter((m) => m.subscriber_id.startsWith('keyed-'));
        return rows.map((m) => m.subscriber_id).sort();
      })
      .toEqual(Array.from({ length: 8 }, (_, k) => `keyed-${k}`).sort());
  });

  it('digest joins from both processes under load end in one digest message holding every event', { timeout: 90_000 }, async () => {
    const { a, b } = pair;
    const digest = { template: { type: 'digest' }, metadata: { type: 'regular', amount: 5, unit: 'seconds' } };
    await created(call(a.url, 'POST', '/v1/workflows', workflow('daily', [digest, inApp('{{ step.total_count }}:{% for e in step.events %}{{ e.n }},{% endfor %}')])));
    // 20 bulk calls of 10 events, half through each process, all at once.
    const calls = Array.from({ length: 20 }, (_, c) =>
      created(call(c % 2 === 0 ? a.url : b.url, 'POST', '/v1/events/trigger/bulk', { events: Array.from({ length: 10 }, (_, i) => ({ name: 'daily', to: 'dana', payload: { n: c * 10 + i } })) })),
    );
    for (const body of await Promise.all(calls)) expect(body.data.every((r: { status: string }) => r.status === 'processed')).toBe(true);
    const digests = async () => (await storedMessages(pair.schema)).filter((m) => m.subscriber_id === 'dana');
    // Every call has answered; once Dana has no job and no open digest left, her messages are final:
    // a message still to come (a second digest, a flush that sends again later) has a job until it is
    // stored, however long it waits.
    await expect.poll(async () => ({ ...(await workLeft(pair.schema, (s) => s === 'dana')), stored: (await digests()).length > 0 }), { timeout: 60_000, interval: 250 }).toEqual({ jobs: 0, openDigests: 0, stored: true });
    // Nothing trails behind the one digest.
    const [only, ...more] = await digests();
    expect(more).toEqual([]);
    const [count, list] = only!.content.split(':');
    expect(count).toBe('200');
    expect(list!.split(',').filter(Boolean).map(Number).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, n) => n));
  });
});

describe.skipIf(!url)('one of two processes killed with SIGKILL under load', () => {
  it('no acknowledged event lost, no message twice, and the survivor’s live clients keep receiving', { timeout: 120_000 }, async () => {
    const schema = schemaName();
    // A short lease, so the survivor takes the dead process's jobs over within seconds.
    const [doomed, survivor] = await Promise.all([serveProcess(schema, ['--lease-ms', '1500']), serveProcess(schema, ['--lease-ms', '1500'])]);
    // A delay between two in-app steps puts every event through the job loops of both processes.
    await created(call(survivor.url, 'POST', '/v1/workflows', workflow('chain', [inApp('first {{ payload.n }}'), { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'seconds' } }, inApp('second {{ payload.n }}')])));
    await created(call(survivor.url, 'POST', '/v1/workflows', workflow('ping', [inApp('ping')])));
    await created(call(survivor.url, 'POST', '/v1/subscribers', { subscriberId: 'watcher' }));
    const sse = await openSse(survivor.url, 'watcher', KEY);

    const acknowledged = new Set<string>();
    // Events acknowledged by the doomed process, and by the survivor after the kill.
    const answered = { doomed: 0, survivorAfterKill: 0 };
    let n = 0;
    let killed = false;
    let enough = false;
    const load = async (target: Served) => {
      for (;;) {
        if (target === doomed ? killed : enough) return;
        const afterKill = killed;
        const events = Array.from({ length: 20 }, () => ({ name: 'chain', to: `load-${n % 25}`, payload: { n: n++ } }));
        const answer = await call(target.url, 'POST', '/v1/events/trigger/bulk', { events }).catch(() => null);
        if (answer?.status !== 201) continue;
        const processed = (answer.body.data as { status: string; transactionId: string }[]).filter((r) => r.status === 'processed');
        for (const r of processed) acknowledged.add(r.transactionId);
        if (target === doomed) answered.doomed += processed.length;
        else if (afterKill) answered.survivorAfterKill += processed.length;
      }
    };
    const loads = [load(doomed), load(doomed), load(survivor), load(survivor)];
    // The kill comes once the doomed process has acknowledged events of its own (at least 2 s of load,
    // however slow the machine), and the load stops once the survivor has acknowledged more after it:
    // counts reached, not a throughput floor, so a slow machine only takes longer.
    try {
      const loadFrom = Date.now();
      await expect.poll(() => answered.doomed >= 60 && Date.now() - loadFrom >= 2_000, { timeout: 60_000, interval: 50 }).toBe(true);
      doomed.kill('SIGKILL');
      killed = true;
      const killedAt = Date.now();
      await expect.poll(() => answered.survivorAfterKill >= 60 && Date.now() - killedAt >= 1_500, { timeout: 60_000, interval: 50 }).toBe(true);
    } finally {
      // The load ends however the waits end (a failed one must not leave it calling dead servers).
      killed = enough = true;
      await Promise.all(loads);
    }
    console.log(`SIGKILL test: ${acknowledged.size} events acknowledged (${answered.doomed} by the killed process, ${answered.survivorAfterKill} by the survivor after the kill)`);

    // The survivor's live client still hears new deliveries, whether made in the request (in-app only)
    // or by the job loop working through the backlog the dead process left.
    const before = sse.events.length;
    const heard = (content: string) => sse.events.slice(before).some((e) => e.event === 'message' && (e.data as { content: string }).content === content);
    await created(call(survivor.url, 'POST', '/v1/events/trigger', { name: 'ping', to: 'watcher', payload: {} }));
    await expect.poll(() => heard('ping'), { timeout: 15_000 }).toBe(true);
    await created(call(survivor.url, 'POST', '/v1/events/trigger', { name: 'chain', to: 'watcher', payload: { n: 'w' } }));
    await expect.poll(() => heard('first w') && heard('second w'), { timeout: 30_000 }).toBe(true);

    // Every acknowledged event ends with both messages (the dead process's leased jobs taken over), none
    // twice: read once no job of the load's subscribers is left (a job row stays until the commit that
    // stores its effects), so no message can still come after the read.
    const loadSubscriber = (s: string) => s.startsWith('load-') || s === 'watcher';
    await expect.poll(() => workLeft(schema, loadSubscriber), { timeout: 60_000, interval: 500 }).toEqual({ jobs: 0, openDigests: 0 });
    const rows = await storedMessages(schema);
    const perTransaction = new Map<string, string[]>();
    for (const row of rows) perTransaction.set(row.transaction_id, [...(perTransaction.get(row.transaction_id) ?? []), row.content.split(' ')[0]!]);
    expect([...acknowledged].filter((tx) => (perTransaction.get(tx) ?? []).sort().join() !== 'first,second')).toEqual([]);
    const seen = new Set<string>();
    for (const row of rows) {
      const key = `${row.transaction_id}|${row.content}`;
      expect(seen.has(key), `${key} stored twice`).toBe(false);
      seen.add(key);
    }
    sse.close();
  });
});

describe.skipIf(!url)('tidings serve --processes 2 (one port, node cluster)', () => {
  it('serves from two copies on one port, replaces a copy that dies, and stops all on SIGTERM with 0', { timeout: 120_000 }, async () => {
    const schema = schemaName();
    const served = await serveProcess(schema, ['--processes', '2']);
    const pids = /\(2 processes: (\d+), (\d+)\)/.exec(served.output())!.slice(1).map(Number);
    expect(pids).toHaveLength(2);
    expect(served.output().match(/listening on/g)).toHaveLength(1);
    await created(call(served.url, 'POST', '/v1/workflows', workflow('hello', [inApp('Hello {{ payload.n }}')])));
    await created(call(served.url, 'POST', '/v1/subscribers', { subscriberId: 'ada' }));
    // The live stream holds one connection to one copy; triggers on fresh connections go to both in
    // turn, and the stream hears every one.
    const sse = await openSse(served.url, 'ada', KEY);
    for (let n = 0; n < 6; n++) await created(call(served.url, 'POST', '/v1/events/trigger', { name: 'hello', to: 'ada', payload: { n } }));
    await expect.poll(() => sse.events.filter((e) => e.event === 'message').length, { timeout: 15_000 }).toBe(6);
    await expect.poll(() => sse.last('counts'), { timeout: 15_000 }).toEqual({ total: 6, unread: 6, unseen: 6 });
    sse.close();

    process.kill(pids[0]!, 'SIGKILL');
    await waitForOutput(served, `process ${pids[0]} exited (SIGKILL); starting another`);
    // Every request still answers while the replacement starts, and after.
    for (let n = 0; n < 3; n++) await created(call(served.url, 'POST', '/v1/events/trigger', { name: 'hello', to: 'ada', payload: { n } }));
    await waitForOutput(served, `serves in place of ${pids[0]}`);
    for (let n = 0; n < 6; n++) await created(call(served.url, 'POST', '/v1/events/trigger', { name: 'hello', to: 'ada', payload: { n } }));

    served.kill('SIGTERM');
    const code = await served.exited;
    expect(code, served.output()).toBe(0);
    expect(served.output()).toContain('Tidings stopped');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive(pids[1]!)).toBe(false);
  });
});
