import Database from 'better-sqlite3';
import { sqliteStorage } from '@tidings/sqlite';
import { engineBulk } from './lib/engine-bulk.js';
const inline = process.argv[2] === 'inline';
const probe = new Database(':memory:');
const proto = Object.getPrototypeOf(probe.prepare('select 1'));
const times = new Map<string, [number, number]>();
for (const m of ['run', 'all', 'get']) {
  const orig = proto[m];
  proto[m] = function (this: any, ...args: any[]) { const s = performance.now(); try { return orig.apply(this, args); } finally { const key = `${m} ${this.source.slice(0, 90)}`; const e = times.get(key) ?? [0, 0]; e[0] += performance.now() - s; e[1]++; times.set(key, e); } };
}
const storage = sqliteStorage({ filename: `/tmp/prof/s-${Date.now()}.db` });
await engineBulk(storage, { calls: 5, perEvent: 1, prefix: 'w', engine: { inlineInApp: inline } });
times.clear();
const r = await engineBulk(storage, { calls: 200, perEvent: 1, prefix: 'm', engine: { inlineInApp: inline } });
console.log(Math.round(r.messages / r.seconds), 'msg/s', (r.seconds * 1000).toFixed(0), 'ms');
let tot = 0;
for (const [k, [v, c]] of [...times].sort((a, b) => b[1][0] - a[1][0]).slice(0, 25)) { tot += v; console.log(v.toFixed(0).padStart(6), 'ms', String(c).padStart(6), k); }
console.log('sum', tot.toFixed(0));
