import { newId } from '../../ids.js';
import type { RecordStore } from '../../records/record-store.js';
import type { AuditEntry } from '../../schemas/operating.js';
import { currentActor } from './actor.js';

/** The audit log: one record per change, keyed by its id, its kind in `i1`, the subscriber it is about (preferences) in `i2`, sorted by `at|id`. */
export const AUDIT = 'audit';

/** What a change says of itself; the log adds its id, when (the engine's clock) and who (the running actor unless named). */
export type AuditChange = Omit<AuditEntry, 'id' | 'at' | 'who'> & { readonly who?: string; readonly subscriberId?: string };

export const auditSort = (entry: Pick<AuditEntry, 'at' | 'id'>) => `${entry.at}|${entry.id}`;

/**
 * Records changes in the audit log through `records`, the record store of the transaction that makes
 * them: an entry exists exactly when its change does.
 */
export async function recordAudit(records: RecordStore, env: string, now: Date, changes: readonly AuditChange[]): Promise<void> {
  if (changes.length === 0) return;
  const at = now.toISOString();
  await records.put(
    env,
    AUDIT,
    changes.map(({ subscriberId, who, fields, ...change }) => {
      const entry: AuditEntry = { id: newId(now), at, who: who ?? currentActor(), ...change, ...(fields !== undefined && { fields }) };
      return { key: entry.id, i1: entry.kind, i2: subscriberId ?? null, sort: auditSort(entry), doc: entry };
    }),
  );
}
