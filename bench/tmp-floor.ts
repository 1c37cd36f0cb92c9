import Database from 'better-sqlite3';
import { sqliteBaseline } from './lib/baselines.js';
import { MIGRATIONS } from '@tidings/sql';
const file = `/tmp/prof/floor-${Date.now()}.db`;
const { sqliteStorage } = await import('@tidings/sqlite');
const s = sqliteStorage({ filename: file }); await s.workflows.list('x'); await s.close();
const db = new Database(file); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
const msg = db.prepare('insert into tidings_messages (id, env, subscriber_internal_id, transaction_id, channel, read, seen, created_at, doc, archived, snoozed_until, tags) values (?,?,?,?,?,?,?,?,?,?,?,?) on conflict do nothing');
const notif = db.prepare('insert into tidings_notifications (env, id, transaction_id, doc) values (?,?,?,?) on conflict do nothing');
const sub = db.prepare('insert into tidings_subscribers (env, subscriber_id, id, doc) values (?,?,?,?) on conflict (env, subscriber_id) do update set doc = excluded.doc');
const trace = db.prepare('insert into tidings_traces (env, transaction_id, subscriber_id, at, doc) values (?,?,?,?,?)');
const pad = (n: number) => 'x'.repeat(n);
let n = 0;
const variants: Record<string, (i: number, now: string) => void> = {
  'msg+sub': (i, now) => { sub.run('default', `s${i}`, `id${i}`, pad(368)); msg.run(`${i}`.padStart(51, '0'), 'default', `id${i}`, `tx${i}`, 'in_app', 0, 0, now, pad(665), 0, null, ''); },
  '+notif': (i, now) => { notif.run('default', `n${i}`, `tx${i}`, pad(330)); sub.run('default', `s${i}`, `id${i}`, pad(368)); msg.run(`${i}`.padStart(51, '0'), 'default', `id${i}`, `tx${i}`, 'in_app', 0, 0, now, pad(665), 0, null, ''); },
  '+trace': (i, now) => { notif.run('default', `n${i}`, `tx${i}`, pad(330)); sub.run('default', `s${i}`, `id${i}`, pad(368)); msg.run(`${i}`.padStart(51, '0'), 'default', `id${i}`, `tx${i}`, 'in_app', 0, 0, now, pad(665), 0, null, ''); trace.run('default', `tx${i}`, `s${i}`, now, pad(305)); },
};
for (const [name, fn] of Object.entries(variants)) {
  const call = db.transaction(() => { const now = new Date().toISOString(); for (let e = 0; e < 100; e++) fn(n++, now); });
  for (let c = 0; c < 20; c++) call();
  const t0 = performance.now(); for (let c = 0; c < 300; c++) call(); const s = (performance.now() - t0) / 1000;
  console.log(name, Math.round(30000 / s), 'msg/s');
}
const b = sqliteBaseline(`/tmp/prof/base-${Date.now()}.db`);
for (let c = 0; c < 20; c++) await b.call(c, 1);
const t0 = performance.now(); for (let c = 0; c < 300; c++) await b.call(c + 20, 1); console.log('baseline', Math.round(30000 / ((performance.now() - t0) / 1000)));
