import type { JobOf, Message } from '../../schemas/index.js';
import type { DecisionRecord } from '../../walk/trace.js';
import type { StorageRepositories } from '../../storage.js';
import type { EngineContext } from '../context.js';
import { retryDelayMs } from '../runtime/jobs.js';
import { nextTurn } from '../runtime/loop-yield.js';
import { SWEEP_EVERY_MS, deletionRecords } from './sweep.js';
import { resultOf, waitUntil } from '../runtime/job-result.js';
import type { EngineJobHandler } from '../walk/batch-data.js';
import { AUDIT } from '../audit/audit-records.js';

const DAY_MS = 86_400_000;

/**
 * One of the sweep's transactions, begun on a turn of the event loop of its own. The sweep is many
 * short transactions (each at most `retention.batchSize` rows), and on SQLite, whose calls never
 * wait for I/O, nothing else of the process would run between them: 120,000 messages expiring
 * together held `tidings serve` for 14 s.
 */
async function apart<T>(ctx: EngineContext, fn: (tx: StorageRepositories) => Promise<T>): Promise<T> {
  await nextTurn();
  return ctx.storage.transaction(fn);
}

/** One batch of messages deleted in a transaction of its own, with what `explain` says of them. */
async function deleteBatch(ctx: EngineContext, job: JobOf<'sweep'>, at: string, take: (tx: StorageRepositories) => Promise<Message[]>, reason: (m: Message) => string): Promise<Message[]> {
  return apart(ctx, async (tx) => {
    const deleted = await take(tx);
    const records: DecisionRecord[] = await deletionRecords(tx, ctx.env, job.id, at, deleted, reason);
    if (records.length > 0) await tx.traces.append(records);
    return deleted;
  });
}

/**
 * The environment's housekeeping, one batch of each kind per run, each in a short transaction of its
 * own (no transaction holds the write lock for long) with a turn of the event loop before it:
 * expired messages, then what the retention policy says is too old. When a batch came back full,
 * more remain: the sweep runs again at once, after the jobs already due (not in a loop of its own
 * here, which would hold the commit of every job claimed with it until the last row is gone).
 * Otherwise it waits for the next expiry, at most SWEEP_EVERY_MS. A failed run tries again with
 * backoff and never gives up: the sweep is the only one there is.
 */
export const sweepHandler: EngineJobHandler<'sweep'> = async (job, { ctx, now }) => {
  const { env } = ctx;
  const { batchSize: limit, messages: keepMessages, notifications: keepNotifications, audit: keepAudit } = ctx.options.retention;
  const at = now.toISOString();
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
  try {
    const expired = await deleteBatch(ctx, job, at, (tx) => tx.retention.deleteExpiredMessages(env, at, limit), (m) => `expired at ${m.expiresAt}: the message was deleted`);
    for (const message of expired) if (message.channel === 'in_app') ctx.events.emit('message.expired', { message });
    let full = expired.length === limit;
    // Window hits of throttle, cap and rate keys that are not counted again (their own use prunes the others).
    full ||= (await apart(ctx, (tx) => tx.frequency.pruneExpired(env, at, limit))) === limit;
    if (keepMessages) {
      const cutoff = before(keepMessages.days);
      const old = await deleteBatch(ctx, job, at, (tx) => tx.retention.deleteMessagesBefore(env, cutoff, limit), () => `older than the retention policy's ${keepMessages.days} days: the message was deleted`);
      full ||= old.length === limit;
    }
    if (keepNotifications) {
      const cutoff = before(keepNotifications.days);
      const notifications = await apart(ctx, (tx) => tx.retention.deleteNotificationsBefore(env, cutoff, limit));
      const deliveries = await apart(ctx, (tx) => tx.retention.deleteDeliveriesBefore(env, cutoff, limit));
      full ||= notifications.length === limit || deliveries === limit;
    }
    if (keepAudit) {
      // Entries sort by `at|id`: those before the cutoff instant are older.
      const cutoff = before(keepAudit.days);
      full ||= (await apart(ctx, (tx) => tx.records.deleteWhere(env, AUDIT, { sort: { lt: cutoff }, limit }))).length === limit;
    }
    if (full) return resultOf(job, waitUntil(job, now));
    const next = await ctx.storage.retention.nextExpiry(env);
    const hourly = new Date(now.getTime() + SWEEP_EVERY_MS).toISOString();
    return resultOf(job, waitUntil(job, new Date(next !== null && next < hourly ? next : hourly)));
  } catch (error) {
    const runAt = new Date(now.getTime() + retryDelayMs(job.attempts));
    return resultOf(job, { kind: 'later', runAt, data: job.data, retry: true, lastError: error instanceof Error ? error.message : String(error) });
  }
};
