import { sqliteStorage } from '@tidings/sqlite';
import { memoryStorage } from '@tidings/memory';
import { engineBulk } from './lib/engine-bulk.js';
const backend = process.argv[2] ?? 'sqlite';
const inline = process.argv[3] === 'inline';
const base = backend === 'memory' ? memoryStorage() : sqliteStorage({ filename: `/tmp/prof/t-${Date.now()}.db` });
const times = new Map<string, number>();
function wrap(obj: any, prefix: string): any {
  return new Proxy(obj, { get(target, prop) {
    const v = target[prop];
    if (typeof v === 'function') {
      if (prop === 'transaction') return (fn: any) => v.call(target, (tx: any) => fn(wrap(tx, 'tx.')));
      return async (...args: any[]) => { const s = performance.now(); try { return await v.apply(target, args); } finally { const key = prefix + String(prop); times.set(key, (times.get(key) ?? 0) + performance.now() - s); } };
    }
    if (v && typeof v === 'object') return wrap(v, prefix + String(prop) + '.');
    return v;
  }});
}
const storage = wrap(base, '');
await engineBulk(storage, { calls: 5, perEvent: 1, prefix: 'w', engine: { inlineInApp: inline } });
times.clear();
const r = await engineBulk(storage, { calls: 200, perEvent: 1, prefix: 'm', engine: { inlineInApp: inline } });
console.log(backend, inline, Math.round(r.messages / r.seconds), 'msg/s total', (r.seconds*1000).toFixed(0), 'ms');
for (const [k, v] of [...times].sort((a, b) => b[1] - a[1])) console.log(v.toFixed(0).padStart(7), 'ms', k);
