import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
// Core by path, not by package name: the benchmarks import this file from outside any package.
import { createTidings, type Storage } from '../packages/core/src/index.js';
import { upsertSubscribers, wrapRepositories, type StorageRepositories } from '../packages/core/src/internal.js';
import type { SqlStorage } from '../packages/sql/src/index.js';

/** What one broadcast to a large environment did, measured as it ran. */
export interface BroadcastScale {
  readonly subscribers: number;
  readonly transactionId: string;
  /** Seconds from the call until every message was stored, and the call's own share. */
  readonly seconds: number;
  readonly triggerSeconds: number;
  /**
   * Messages the broadcast stored, and how many subscribers they went to (each once: the same number),
   * counted with one raw query on a SQL storage (an independent read, holding nothing).
   */
  readonly messages: number;
  readonly reached: number;
  /** Notifications of the environment afterwards: the broadcast is one. */
  readonly notifications: number;
  /** The most items (ids, records) any one storage call returned during the broadcast. */
  readonly largestCall: number;
  /**
   * Live heap before the broadcast (after a full GC), and the most it grew by at the end of any
   * transaction, when a batch holds the most (after a full GC there too, so garbage is not counted).
   */
  readonly heapBeforeMb: number;
  readonly peakHeapGrowthMb: number;
  /** Transactions the broadcast ran (each one a heap sample). */
  readonly transactions: number;
  /** How much more live heap (after a full GC) there was once every message was stored. */
  readonly retainedHeapGrowthMb: number;
}

/** A full garbage collection, also in a process started without `--expose-gc`. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const mb = (bytes: number) => bytes / 1_048_576;

/**
 * Seeds `subscribers` subscribers straight through the store (setup, not measured), then broadcasts
 * one in-app workflow to them with default engine options and runs the jobs until every message is
 * stored, measuring time, the largest storage call and the live heap (after a full GC): before, at
 * the end of every transaction (the peak), and after (what stays). The GCs count in the time.
 */
export async function broadcastAtScale(storage: Storage, subscribers: number, options: { env?: string } = {}): Promise<BroadcastScale> {
  const env = options.env ?? 'default';
  const gc = collector();
  let largestCall = 0;
  let peak = 0;
  let transactions = 0;
  let measuring = false;
  const sizeOf = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  const watch = (repositories: StorageRepositories) =>
    wrapRepositories(repositories, async (call) => {
      const result = await call();
      if (measuring) largestCall = Math.max(largestCall, sizeOf(result));
      return result;
    });
  const watched: Storage = {
    ...watch(storage),
    capabilities: storage.capabilities,
    close: () => storage.close(),
    transaction: (fn) =>
      storage.transaction(async (tx) => {
        const value = await fn(watch(tx));
        if (measuring) {
          // Everything the transaction writes is still held here.
          transactions++;
          gc();
          peak = Math.max(peak, getHeapStatistics().used_heap_size);
        }
        return value;
      }),
  };
  const tidings = createTidings({ storage: watched, environmentId: env });
  await tidings.workflows.upsert({ name: 'Announcement', triggers: [{ identifier: 'announcement' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] });
  const now = new Date().toISOString();
  for (let i = 0; i < subscribers; i += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, subscribers - i) }, (_, k) => ({ _id: `i-${i + k}`, patch: { subscriberId: `member-${i + k}`, firstName: `M${i + k}` } }));
    await storage.transaction((tx) => upsertSubscribers(tx, env, batch, now, 'default'));
  }

  gc();
  const before = getHeapStatistics().used_heap_size;
  peak = before;
  measuring = true;
  const started = performance.now();
  const result = await tidings.broadcast({ name: 'announcement' });
  const triggered = performance.now();
  while ((await tidings.runDue()) > 0);
  const done = performance.now();
  measuring = false;
  gc();
  const after = getHeapStatistics().used_heap_size;

  const { messages, reached } = await countMessages(storage, env, result.transactionId!);
  const notifications = (await storage.notifications.list(env, { limit: 10 })).items.length;
  if ((await tidings.pending()).jobs.length !== 0) throw new Error('the broadcast left jobs behind');
  return {
    subscribers,
    transactionId: result.transactionId!,
    seconds: (done - started) / 1000,
    triggerSeconds: (triggered - started) / 1000,
    messages,
    reached,
    notifications,
    largestCall,
    heapBeforeMb: mb(before),
    peakHeapGrowthMb: mb(peak - before),
    transactions,
    retainedHeapGrowthMb: mb(after - before),
  };
}

/** How many messages a trigger stored and to how many subscribers: one raw query on SQL, else the port's read of them all. */
async function countMessages(storage: Storage, env: string, transactionId: string): Promise<{ messages: number; reached: number }> {
  if ('db' in storage) {
    const row = await (storage as SqlStorage).db
      .selectFrom('tidings_messages')
      .select((eb) => [eb.fn.countAll<number | string>().as('messages'), eb.fn.count<number | string>('subscriber_internal_id').distinct().as('reached')])
      .where('env', '=', env)
      .where('transaction_id', '=', transactionId)
      .executeTakeFirstOrThrow();
    return { messages: Number(row.messages), reached: Number(row.reached) };
  }
  const stored = await storage.messages.listByTransaction(env, transactionId);
  return { messages: stored.length, reached: new Set(stored.map((m) => m.subscriberId)).size };
}
