import type { DecisionRecord, Job, Message, Notification } from '@tidings/core';
import type { SubscriberUpsert } from '@tidings/core/internal';
import { upsertSubscribers } from '@tidings/core/internal';
import { memoryStorage, type MemoryStorageOptions } from '@tidings/memory';
import { sqliteStorage } from '@tidings/sqlite';
import Database from 'better-sqlite3';
import type { Baseline } from './baselines.js';
import { BENCH_STEP_ID, BENCH_TEMPLATE_ID, messageDocument, orderedIds, subscriberDocument } from './documents.js';

/**
 * The engine's own floor: raw prepared statements writing exactly the rows the engine writes for the
 * bulk workload, on its own schema (made by its migrations), with documents of the same size, and no
 * engine code at all. Per event: the notification, the subscriber, and (with jobs) a job that is
 * inserted, claimed, and deleted; per message: the message and its decision record. The distance from
 * this floor to the raw baseline is what the schema costs; from the engine to this floor, what the
 * engine's code costs.
 */
export async function sqliteFloor(filename: string, mode: 'jobs' | 'inline'): Promise<Baseline> {
  const schema = sqliteStorage({ filename });
  await schema.migrate();
  await schema.close();
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Notifications, subscribers and decision records are records of the record store (core's `records/`), each table in one of its own.
  // Inline, a call's notifications name its one decision record (i3); through jobs, each walk's record is the trigger's (i1).
  const notification = db.prepare("insert into tidings_record_notifications (env, key, i1, i3, sort, doc) values (?, ?, ?, ?, ?, ?) on conflict do nothing returning key");
  const subscriber = db.prepare("insert into tidings_record_subscribers (env, key, sort, doc) values (?, ?, '', ?) on conflict (env, key) do update set doc = excluded.doc");
  const job = db.prepare('insert into tidings_jobs (id, env, kind, run_at, attempts, locked_by, locked_until, transaction_id, subscriber_id, data, last_error) values (?, ?, ?, ?, 0, null, null, ?, ?, ?, null)');
  const claim = db.prepare(`update tidings_jobs set locked_by = ?, locked_until = ?, attempts = attempts + 1
    where id in (select id from tidings_jobs where env = ? and run_at <= ? and (locked_until is null or locked_until <= ?) order by run_at, id limit 1000) returning *`);
  const message = db.prepare('insert into tidings_messages (id, env, subscriber_internal_id, transaction_id, channel, read, seen, created_at, doc, archived, snoozed_until, tags) values (?, ?, ?, ?, ?, 0, 0, ?, ?, 0, null, ?) on conflict do nothing returning id');
  const trace = db.prepare("insert into tidings_record_traces (env, key, i1, i3, sort, doc) values (?, ?, ?, ?, '', ?)");
  let traceSeq = 0;
  const traceKey = () => String(traceSeq++).padStart(20, '0');
  const done = db.prepare('delete from tidings_jobs where id = ? and locked_by = ?');
  const { id, transactionId } = orderedIds();
  const record = db.transaction((perEvent: number, call: number, callTraces: string | null) => {
    const now = new Date().toISOString();
    const work: { tx: string; notificationId: string; subscriberId: string; internalId: string; n: number }[] = [];
    for (let e = 0; e < 100; e++) {
      const n = call * 100 + e;
      const notificationId = id();
      const tx = transactionId();
      notification.get('default', tx, notificationId, callTraces, `${now}\u0001${notificationId}`, JSON.stringify({ _id: notificationId, _environmentId: 'default', _organizationId: 'default', _templateId: BENCH_TEMPLATE_ID, templateIdentifier: 'bench', transactionId: tx, payload: { n }, overrides: {}, actorId: null, tenantId: null, context: {}, createdAt: now }));
      for (let k = 0; k < perEvent; k++) {
        const subscriberId = `f-${n}-${k}`;
        const internalId = id();
        subscriber.run('default', subscriberId, subscriberDocument(subscriberId, internalId, n, now));
        work.push({ tx, notificationId, subscriberId, internalId, n });
        if (mode === 'jobs') job.run(id(), 'default', 'walk', now, tx, subscriberId, JSON.stringify({ notificationId, stepIndex: 0 }));
      }
    }
    return work;
  });
  const deliver = db.transaction((work: ReturnType<typeof record>, claimed: string[], callTraces: string | null) => {
    const now = new Date().toISOString();
    const entries = [{ stepIndex: 0, stepId: BENCH_STEP_ID, type: 'in_app', decision: 'delivered', reason: 'rendered for in_app' }];
    for (const w of work) {
      message.get(`${w.notificationId}000${w.internalId}`, 'default', w.internalId, w.tx, 'in_app', now, messageDocument(w.notificationId, w.subscriberId, w.n, now), '');
      if (!callTraces) trace.run('default', traceKey(), w.tx, w.subscriberId, JSON.stringify({ runs: [{ at: now, entries, who: [[w.subscriberId, w.notificationId]] }] }));
    }
    if (callTraces) trace.run('default', callTraces, null, '*', JSON.stringify({ runs: [{ at: now, entries, who: work.map((w) => [w.subscriberId, w.notificationId, w.tx]) }] }));
    for (const jobId of claimed) done.run(jobId, 'w-floor');
  });
  return {
    call(call, perEvent) {
      const callTraces = mode === 'inline' ? traceKey() : null;
      const work = record(perEvent, call, callTraces);
      let claimed: string[] = [];
      if (mode === 'jobs') {
        const now = new Date().toISOString();
        claimed = (claim.all('w-floor', new Date(Date.now() + 30_000).toISOString(), 'default', now, now) as { id: string }[]).map((row) => row.id);
      }
      deliver(work, claimed, callTraces);
    },
    close() {
      db.close();
    },
  };
}

/**
 * The same floor for the memory store: its own port calls for exactly the engine's records (the
 * notification, the subscriber, the job enqueued, claimed and completed; the message and its decision
 * record), in the same transactions, with no engine code. Records are built by hand in the shapes the
 * engine writes.
 */
export function memoryFloor(mode: 'jobs' | 'inline', options: MemoryStorageOptions = {}): Baseline {
  const storage = memoryStorage(options);
  const ids = orderedIds();
  const id = ids.id;
  return {
    async call(call, perEvent) {
      const now = new Date().toISOString();
      const notifications: Notification[] = [];
      const upserts: SubscriberUpsert[] = [];
      const work: { notification: Notification; subscriberId: string; internalId: string; n: number }[] = [];
      for (let e = 0; e < 100; e++) {
        const n = call * 100 + e;
        const transactionId = ids.transactionId();
        const notification: Notification = { _id: id(), _environmentId: 'default', _organizationId: 'default', _templateId: 'wf', templateIdentifier: 'bench', transactionId, payload: { n }, overrides: {}, actorId: null, tenantId: null, context: {}, createdAt: now };
        notifications.push(notification);
        for (let k = 0; k < perEvent; k++) {
          const subscriberId = `mf-${n}-${k}`;
          const internalId = id();
          upserts.push({ _id: internalId, patch: { subscriberId, firstName: `S${n}` } });
          work.push({ notification, subscriberId, internalId, n });
        }
      }
      const jobs: Job[] = work.map((w) => ({ id: id(), environmentId: 'default', kind: 'walk', runAt: now, attempts: 0, lockedBy: null, lockedUntil: null, transactionId: w.notification.transactionId, subscriberId: w.subscriberId, data: { notificationId: w.notification._id, stepIndex: 0 }, lastError: null }));
      const messages: Message[] = work.map((w) => ({
        _id: `${w.notification._id}000${w.internalId}`, _templateId: 'wf', _environmentId: 'default', _messageTemplateId: 'step', _organizationId: 'default', _notificationId: w.notification._id,
        _subscriberId: w.internalId, subscriberId: w.subscriberId, templateIdentifier: 'bench', createdAt: now, deliveredAt: [now], content: `Hello S${w.n}, ${w.n}`, transactionId: w.notification.transactionId,
        channel: 'in_app', read: false, seen: false, archived: false, cta: {}, _feedId: null, status: 'sent', payload: { n: w.n }, overrides: {}, contextKeys: [], tags: [], severity: 'none',
      }));
      const records: DecisionRecord[] = work.map((w, i) => ({ environmentId: 'default', transactionId: w.notification.transactionId, subscriberId: w.subscriberId, jobId: jobs[i]!.id, at: now, entries: [{ stepIndex: 0, stepId: 'step', type: 'in_app', decision: 'delivered', reason: 'rendered for in_app' }] }));
      const callTraces = `floor-${call}`;
      await storage.transaction(async (tx) => {
        await tx.notifications.insertMany('default', notifications, mode === 'inline' ? { callTraces } : {});
        await upsertSubscribers(tx, 'default', upserts, now, 'default');
        if (mode === 'jobs') await tx.jobs.enqueue('default', jobs);
        else {
          await tx.messages.insertMany('default', messages);
          await tx.traces.appendCall(callTraces, records);
        }
      });
      if (mode === 'inline') return;
      const claimed = await storage.jobs.claimDue({ env: 'default', workerId: 'w-floor', now, limit: jobs.length, leaseMs: 30_000 });
      await storage.transaction(async (tx) => {
        await tx.messages.insertMany('default', messages);
        await tx.traces.append(records);
        await tx.jobs.complete('default', claimed.map((j) => j.id), 'w-floor');
      });
    },
    close: () => storage.close(),
  };
}
