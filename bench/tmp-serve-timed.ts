import Database from 'better-sqlite3';
const probe = new Database(':memory:');
const proto = Object.getPrototypeOf(probe.prepare('select 1'));
const times = new Map<string, [number, number]>();
for (const m of ['run', 'all', 'get']) {
  const orig = proto[m];
  proto[m] = function (this: any, ...args: any[]) { const s = performance.now(); try { return orig.apply(this, args); } finally { const key = `${m} ${this.source.replace(/\s+/g, ' ').slice(0, 80)}`; const e = times.get(key) ?? [0, 0]; e[0] += performance.now() - s; e[1]++; times.set(key, e); } };
}
process.on('exit', () => { let tot = 0; for (const [k, [v, c]] of [...times].sort((a, b) => b[1][0] - a[1][0]).slice(0, 18)) { tot += v; console.error(v.toFixed(0).padStart(6), 'ms', String(c).padStart(6), k); } console.error('sum', tot.toFixed(0)); });
const { main } = await import('../packages/http/src/cli.js');
await main(process.argv.slice(2));
