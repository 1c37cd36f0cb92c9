import Database from 'better-sqlite3';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
const size = Number(process.argv[2] ?? 100000);
const probe = new Database(':memory:');
const proto = Object.getPrototypeOf(probe.prepare('select 1'));
const times = new Map<string, [number, number]>();
for (const m of ['run', 'all', 'get']) {
  const orig = proto[m];
  proto[m] = function (this: any, ...args: any[]) { const s = performance.now(); try { return orig.apply(this, args); } finally { const key = `${m} ${this.source.slice(0, 90)}`; const e = times.get(key) ?? [0, 0]; e[0] += performance.now() - s; e[1]++; times.set(key, e); } };
}
const storage = sqliteStorage({ filename: `/tmp/prof/f-${Date.now()}.db` });
const tidings = createTidings({ storage, batchSize: 1_000 });
await tidings.workflows.upsert({ name: 'Fan', triggers: [{ identifier: 'fan' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] });
const ids = Array.from({ length: size }, (_, i) => `member-${i}`);
const now = new Date().toISOString();
for (let i = 0; i < size; i += 5_000) {
  await storage.subscribers.upsertMany('default', ids.slice(i, i + 5_000).map((subscriberId, k) => ({ _id: `i-${i + k}`, patch: { subscriberId, firstName: `M${i + k}` } })), now, 'default');
  await tidings.topics.addSubscribers('everyone', ids.slice(i, i + 5_000));
}
times.clear();
const c0 = process.cpuUsage(); const t0 = performance.now();
await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
const t1 = performance.now();
await tidings.runDue();
const t2 = performance.now();
const cu = process.cpuUsage(c0); console.log('trigger', (t1 - t0).toFixed(0), 'ms; runDue', (t2 - t1).toFixed(0), 'ms; cpu user', (cu.user/1000).toFixed(0), 'sys', (cu.system/1000).toFixed(0));
let tot = 0;
for (const [k, [v, c]] of [...times].sort((a, b) => b[1][0] - a[1][0]).slice(0, 16)) { tot += v; console.log(v.toFixed(0).padStart(6), 'ms', String(c).padStart(6), k.replace(/\s+/g, ' ')); }
console.log('sql sum', tot.toFixed(0));
