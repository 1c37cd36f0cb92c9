const W = process.argv[3] ?? 'w';
import Database from 'better-sqlite3';
const file = `/tmp/prof/claim-${Date.now()}.db`;
const { sqliteStorage } = await import('@tidings/sqlite');
const s = sqliteStorage({ filename: file }); await s.workflows.list('x'); await s.close();
const db = new Database(file); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
const ins = db.prepare('insert into tidings_jobs (id, env, kind, run_at, attempts, locked_by, locked_until, transaction_id, subscriber_id, data, last_error) values (?,?,?,?,?,?,?,?,?,?,?)');
const variant = process.argv[2];
function fill() { db.exec('delete from tidings_jobs'); db.transaction(() => { for (let i = 0; i < 100000; i++) ins.run(`6b0340${String(i).padStart(18, '0')}`, 'default', 'walk', '2026-01-01T00:00:00.000Z', 0, null, null, 'tx-1', `member-${i}`, '{"notificationId":"6b033dc8d1b29406a655c173","stepIndex":0}', null); })(); }
fill();
const now = '2026-02-01T00:00:00.000Z';
const upd = db.prepare(`update tidings_jobs set locked_by = ?, locked_until = ?, attempts = attempts + 1 where id in (select id from tidings_jobs where run_at <= ? and (locked_until is null or locked_until <= ?) order by run_at, id limit 1000) returning *`);
const sel = db.prepare(`select * from tidings_jobs where run_at <= ? and (locked_until is null or locked_until <= ?) order by run_at, id limit 1000`);
const updNoRet = db.prepare(`update tidings_jobs set locked_by = ?, locked_until = ?, attempts = attempts + 1 where id in (select id from tidings_jobs where run_at <= ? and (locked_until is null or locked_until <= ?) order by run_at, id limit 1000)`);
const del = (ids: string[]) => db.prepare(`delete from tidings_jobs where id in (${ids.map(() => '?').join(',')}) and locked_by = ?`).run(...ids, W);
let tc = 0, td = 0;
const t0 = performance.now();
for (let b = 0; b < 100; b++) {
  const s1 = performance.now();
  let rows: any[];
  if (variant === 'ret') rows = db.transaction(() => upd.all(W, '2026-03-01T00:00:00.000Z', now, now))();
  else rows = db.transaction(() => { const r = sel.all(now, now); updNoRet.run(W, '2026-03-01T00:00:00.000Z', now, now); return r; })();
  tc += performance.now() - s1;
  const s2 = performance.now(); db.transaction(() => del(rows.map((r) => r.id)))(); td += performance.now() - s2;
}
console.log(variant, 'total', (performance.now() - t0).toFixed(0), 'claim', tc.toFixed(0), 'delete', td.toFixed(0));
