import { type Job, type Message } from '@tidings/core';
import { laneTakes, messageMatches, type KernelRepositories } from '@tidings/core/internal';
import type { QueueEntry } from '../job-queue.js';
import { k, type Tables } from '../tables.js';

type Delivery = Pick<KernelRepositories, 'jobs' | 'messages'>;

const newestFirst = (a: Message, b: Message) =>
  a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a._id < b._id ? 1 : a._id > b._id ? -1 : 0;

const claimableAt = (job: Job) => (job.lockedUntil !== null && job.lockedUntil > job.runAt ? job.lockedUntil : job.runAt);

/** The job queue and messages. */
export function deliveryRepositories(t: Tables): Delivery {
  /** The job, when it is the environment's and leased by `workerId`. */
  const heldBy = (env: string, id: string, workerId: string) => {
    const job = t.jobs.get(id);
    return job?.environmentId === env && job.lockedBy === workerId ? job : undefined;
  };
  const deleteJob = (id: string) => {
    const job = t.jobs.get(id);
    if (job?.key && t.jobKeys.get(k(job.environmentId, job.key)) === id) t.del(t.jobKeys, k(job.environmentId, job.key));
    return t.del(t.jobs, id);
  };
  return {
    jobs: {
      async enqueue(env, jobs) {
        for (const job of jobs) {
          const keyed = job.key ? t.jobKeys.get(k(env, job.key)) : undefined;
          const existing = keyed === undefined ? undefined : t.jobs.get(keyed);
          if (existing) {
            // A keyed job moves the stored one (graphile-worker's replace mode).
            if (existing.runAt !== job.runAt) t.queueOf(existing).push({ runAt: job.runAt, id: existing.id });
            t.put(t.jobs, existing.id, { ...existing, runAt: job.runAt });
            continue;
          }
          t.put(t.jobs, job.id, { ...t.copy(job), environmentId: env });
          if (job.key) t.put(t.jobKeys, k(env, job.key), job.id);
          t.queueOf(job).push({ runAt: job.runAt, id: job.id });
        }
      },
      async claimDue({ env, workerId, now, limit, leaseMs, kinds, exceptKinds }) {
        const inLane = (job: Job) => laneTakes({ kinds, exceptKinds }, job.kind);
        // Transactional jobs first, then bulk ones; from each queue the earliest due jobs come off in
        // (runAt, id) order. Leased jobs keep their entry (they are due again when the lease passes);
        // entries whose job is gone or has moved are dropped.
        const due: Job[] = [];
        for (const queue of [t.jobQueues.transactional, t.jobQueues.bulk]) {
          const keep: QueueEntry[] = [];
          const seen = new Set<string>();
          while (due.length < limit) {
            const top = queue.peek();
            if (!top || top.runAt > now) break;
            queue.pop();
            const job = t.jobs.get(top.id);
            if (!job || job.runAt !== top.runAt || seen.has(top.id)) continue;
            seen.add(top.id);
            keep.push(top);
            if ((env === undefined || job.environmentId === env) && (job.lockedUntil === null || job.lockedUntil <= now) && inLane(job)) due.push(job);
          }
          for (const entry of keep) queue.push(entry);
        }
        const lockedUntil = new Date(Date.parse(now) + leaseMs).toISOString();
        return due.map((job) => {
          const claimed: Job = { ...job, lockedBy: workerId, lockedUntil, attempts: job.attempts + 1 };
          t.put(t.jobs, job.id, claimed);
          return t.copy(claimed);
        });
      },
      async renew(env, ids, workerId, lockedUntil) {
        const held: string[] = [];
        for (const id of ids) {
          const job = heldBy(env, id, workerId);
          if (!job) continue;
          t.put(t.jobs, id, { ...job, lockedUntil });
          held.push(id);
        }
        return held;
      },
      async releaseLeases(env, alive) {
        const living = new Set(alive);
        let freed = 0;
        for (const job of [...t.jobs.values()]) {
          if (job.environmentId !== env || job.lockedBy === null || living.has(job.lockedBy)) continue;
          t.put(t.jobs, job.id, { ...job, lockedBy: null, lockedUntil: null });
          freed++;
        }
        return freed;
      },
      async complete(env, ids, workerId) {
        const done: string[] = [];
        for (const id of ids) if (heldBy(env, id, workerId) && deleteJob(id)) done.push(id);
        return done;
      },
      async reschedule(env, id, workerId, change) {
        const job = heldBy(env, id, workerId);
        if (!job) return false;
        if (change.runAt !== job.runAt) t.queueOf(job).push({ runAt: change.runAt, id });
        t.put(t.jobs, id, {
          ...job,
          runAt: change.runAt,
          data: t.copy(change.data),
          lastError: change.lastError,
          attempts: change.resetAttempts ? 0 : job.attempts,
          lockedBy: null,
          lockedUntil: null,
        } as Job);
        return true;
      },
      async cancelByTransaction(env, transactionId) {
        let cancelled = 0;
        for (const job of [...t.jobs.values()]) {
          if (job.environmentId === env && job.transactionId === transactionId && deleteJob(job.id)) cancelled++;
        }
        return cancelled;
      },
      async cancelBySubscriber(env, subscriberId) {
        let cancelled = 0;
        for (const job of [...t.jobs.values()]) {
          if (job.environmentId === env && job.subscriberId === subscriberId && deleteJob(job.id)) cancelled++;
        }
        return cancelled;
      },
      async nextDueAt(env, lane) {
        let next: string | null = null;
        for (const job of t.jobs.values()) {
          if (env !== undefined && job.environmentId !== env) continue;
          if (lane && !laneTakes(lane, job.kind)) continue;
          const at = claimableAt(job);
          if (next === null || at < next) next = at;
        }
        return next;
      },
      async list(env, filter = {}) {
        return [...t.jobs.values()]
          .filter(
            (j) =>
              j.environmentId === env &&
              (filter.transactionId === undefined || j.transactionId === filter.transactionId) &&
              (filter.subscriberId === undefined || j.subscriberId === filter.subscriberId),
          )
          .sort((a, b) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : 0))
          .map(t.copy);
      },
      async countByKind(env) {
        const counts: Partial<Record<Job['kind'], number>> = {};
        for (const job of t.jobs.values()) if (job.environmentId === env) counts[job.kind] = (counts[job.kind] ?? 0) + 1;
        return counts;
      },
    },
    messages: {
      async insertMany(env, messages) {
        const inserted: Message[] = [];
        for (const message of messages) {
          if (t.messages.has(message._id)) continue;
          const stored = { ...t.copy(message), _environmentId: env };
          t.put(t.messages, message._id, stored);
          t.put(t.inner(t.inboxes, k(env, message._subscriberId)), message._id, stored);
          inserted.push(message);
        }
        return inserted;
      },
      async find(env, lookup) {
        if ('transactionId' in lookup) {
          return [...t.messages.values()]
            .filter((m) => m._environmentId === env && m.transactionId === lookup.transactionId)
            .sort((a, b) => -newestFirst(a, b))
            .map(t.copy);
        }
        const inbox = t.inboxes.get(k(env, lookup.subscriberInternalId));
        return lookup.ids.flatMap((id) => {
          const found = inbox?.get(id);
          return found ? [t.copy(found)] : [];
        });
      },
      async replaceMany(env, messages) {
        for (const message of messages) {
          if (t.messages.get(message._id)?._environmentId !== env) continue;
          const stored = { ...t.copy(message), _environmentId: env };
          t.put(t.messages, message._id, stored);
          t.put(t.inner(t.inboxes, k(env, message._subscriberId)), message._id, stored);
        }
      },
      async feed(env, subscriberInternalId, query) {
        const after = query.after;
        return [...(t.inboxes.get(k(env, subscriberInternalId))?.values() ?? [])]
          .filter((m) => messageMatches(m, query) && (after === undefined || m.createdAt < after.at || (m.createdAt === after.at && m._id < after.id)))
          .sort(newestFirst)
          .slice(query.offset ?? 0)
          .slice(0, query.limit)
          .map(t.copy);
      },
      async countMatching(env, subscriberInternalId, filters) {
        const inbox = [...(t.inboxes.get(k(env, subscriberInternalId))?.values() ?? [])];
        return filters.map((filter) => inbox.filter((m) => messageMatches(m, filter)).length);
      },
      async idsMatching(env, subscriberInternalId, filter) {
        return [...(t.inboxes.get(k(env, subscriberInternalId))?.values() ?? [])]
          .filter((m) => messageMatches(m, filter))
          .sort(newestFirst)
          .map((m) => m._id);
      },
      async deleteMany(env, subscriberInternalId, ids) {
        const inbox = t.inboxes.get(k(env, subscriberInternalId));
        const deleted = new Set<string>();
        for (const id of new Set(ids)) {
          if (!inbox?.has(id)) continue;
          t.del(inbox, id);
          t.del(t.messages, id);
          deleted.add(id);
        }
        return deleted.size;
      },
    },
  };
}
