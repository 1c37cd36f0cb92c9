import type { Job, Message } from '@tidings/core';
import type { StoredRecord } from '@tidings/core/internal';
import { JobQueue } from './job-queue.js';

/** Composite map key of an environment and an id. */
export const k = (env: string, id: string) => `${env}\u0000${id}`;

/**
 * Every record lives in plain Maps. While a transaction runs, each write records how to undo itself,
 * so a failed transaction puts every map back as it was.
 */
export class Tables {
  /** How records go in and come out: `copy`, or as they are when the store shares them. */
  readonly copy: <T>(value: T) => T;

  constructor(options: { copyRecords: boolean }) {
    this.copy = options.copyRecords ? copy : (value) => value;
  }

  /** env|topicKey → subscriberId → internal subscriber id */
  readonly topicMembers = new Map<string, Map<string, string>>();
  readonly jobs = new Map<string, Job>();
  /** env|job key → id of the job with that key */
  readonly jobKeys = new Map<string, string>();
  /**
   * Claim order of `jobs` (see JobQueue), one queue per class: transactional jobs, then bulk ones.
   * Rebuilt from `jobs` when a transaction rolls back.
   */
  readonly jobQueues = { transactional: new JobQueue(), bulk: new JobQueue() } as const;
  /** The claim queue of a job's class. */
  queueOf(job: Pick<Job, 'priority'>): JobQueue {
    return this.jobQueues[job.priority ?? 'transactional'];
  }
  readonly messages = new Map<string, Message>();
  /** env|internal subscriber id → message id → message */
  readonly inboxes = new Map<string, Map<string, Message>>();
  /** env|table → key → record (the record store) */
  readonly records = new Map<string, Map<string, StoredRecord>>();
  /** env|table|i1 → key → true: the records of each first index value */
  readonly recordsByI1 = new Map<string, string | Map<string, true>>();

  /** What each write of the running transaction replaced: the map, the key, and the old entry if any. */
  private undoLog: { map: Map<unknown, unknown>; key: unknown; had: boolean; old: unknown }[] | null = null;

  put<K, V>(map: Map<K, V>, key: K, value: V): void {
    if (this.undoLog) this.undoLog.push({ map: map as Map<unknown, unknown>, key, had: map.has(key), old: map.get(key) });
    map.set(key, value);
  }

  del<K, V>(map: Map<K, V>, key: K): boolean {
    if (!map.has(key)) return false;
    if (this.undoLog) this.undoLog.push({ map: map as Map<unknown, unknown>, key, had: true, old: map.get(key) });
    return map.delete(key);
  }

  /** The inner map under `key`, created (undoably) when missing. */
  inner<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
    let found = map.get(key);
    if (!found) {
      found = new Map();
      this.put(map, key, found);
    }
    return found;
  }

  begin(): void {
    this.undoLog = [];
  }

  commit(): void {
    this.undoLog = null;
  }

  rollback(): void {
    const log = this.undoLog ?? [];
    this.undoLog = null;
    for (let i = log.length - 1; i >= 0; i--) {
      const entry = log[i]!;
      if (entry.had) entry.map.set(entry.key, entry.old);
      else entry.map.delete(entry.key);
    }
    if (log.some((entry) => entry.map === this.jobs)) {
      const jobs = [...this.jobs.values()];
      for (const [priority, queue] of Object.entries(this.jobQueues)) queue.reset(jobs.filter((job) => (job.priority ?? 'transactional') === priority).map(({ runAt, id }) => ({ runAt, id })));
    }
  }
}

/**
 * Records go in and come out as copies, so callers can never change what is stored by accident.
 * Records are JSON data, and a plain recursive copy is several times faster than structuredClone.
 */
export function copy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = copy(item);
  }
  return out as T;
}
