const mode = process.argv[2] ?? "seq";
import Database from 'better-sqlite3';
const file = `/tmp/prof/c-${Date.now()}.db`;
const { sqliteStorage } = await import('@tidings/sqlite');
const s = sqliteStorage({ filename: file }); await s.workflows.list('x'); await s.close();
const db = new Database(file); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL'); if (process.argv[3]) db.pragma(process.argv[3]);
const msg = db.prepare('insert into tidings_messages (id, env, subscriber_internal_id, transaction_id, channel, read, seen, created_at, doc, archived, snoozed_until, tags) values (?,?,?,?,?,?,?,?,?,?,?,?) on conflict do nothing');
const notif = db.prepare('insert into tidings_notifications (env, id, transaction_id, doc) values (?,?,?,?) on conflict do nothing');
const sub = db.prepare('insert into tidings_subscribers (env, subscriber_id, id, doc) values (?,?,?,?) on conflict (env, subscriber_id) do update set doc = excluded.doc');
const trace = db.prepare('insert into tidings_traces (env, transaction_id, subscriber_id, at, doc) values (?,?,?,?,?)');
const begin = db.prepare('begin immediate'), commit = db.prepare('commit');
const pad = (n: number) => 'x'.repeat(n);
let ctr = 0; const rnd = mode === "allseq" ? () => String(1e12 + ctr++) : () => Math.random().toString(16).slice(2);
let n = 0; let tc = 0;

const t0 = performance.now();
for (let c = 0; c < 300; c++) {
  begin.run(); const now = new Date().toISOString();
  for (let e = 0; e < 100; e++) { const i = n++; const id = mode === 'seq' ? `${i}`.padStart(51, '0') : (rnd()+rnd()+rnd()+rnd()).slice(0, 51);
    notif.run('default', `n${i}`, `tx${rnd()}`, pad(330)); sub.run('default', `s${rnd()}`, `id${i}`, pad(368)); msg.run(id, 'default', `id${rnd()}`, `tx${rnd()}`, 'in_app', 0, 0, now, pad(665), 0, null, ''); trace.run('default', `tx${rnd()}`, `s${i}`, now, pad(305)); }
  const s1 = performance.now(); commit.run(); tc += performance.now() - s1;
}
const secs = (performance.now() - t0) / 1000;
console.log(mode, Math.round(30000 / secs), 'msg/s', 'commit total', tc.toFixed(0), 'ms');
