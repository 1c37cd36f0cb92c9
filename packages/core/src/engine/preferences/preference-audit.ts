import { newId } from '../../ids.js';
import { docsOf } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import { PREFERENCE_CHANGES } from '../../records/preferences.js';
import type { JsonObject, LinkScope, PreferenceChange, PreferenceOrigin } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import type { EngineContext } from '../context.js';
import { queueWebhookEvents } from '../webhooks/webhook-outbox.js';
import { recordAudit } from '../audit/audit-records.js';


/** Entries `history` returns at most. */
export const MAX_HISTORY = 500;

/**
 * Records a change in the audit trail and queues its `preference.updated` webhook event, in the
 * transaction `tx` that wrote the preferences: both exist exactly when the change does.
 */
export async function recordPreferenceChange(
  ctx: EngineContext,
  tx: StorageRepositories,
  change: { subscriberId: string; origin: PreferenceOrigin; patches: readonly object[]; scope?: LinkScope | undefined },
): Promise<PreferenceChange> {
  const now = ctx.clock.now();
  const entry: PreferenceChange = {
    id: newId(now),
    subscriberId: change.subscriberId,
    origin: change.origin,
    at: now.toISOString(),
    patches: change.patches.map((patch) => ({ ...patch })),
    ...(change.scope && { scope: change.scope }),
  };
  await tx.records.put(ctx.env, PREFERENCE_CHANGES, [{ key: entry.id, i1: entry.subscriberId, sort: `${entry.at}|${entry.id}`, doc: entry }]);
  await queueWebhookEvents(ctx, tx, [{ type: 'preference.updated', data: { change: entry as unknown as JsonObject } }]);
  // Set through the API (not by the subscriber on a page or in the Inbox): a configuration change, in the audit log too.
  if (change.origin === 'api') {
    const fields = [...new Set(change.patches.flatMap((patch) => Object.keys(patch)))].sort();
    await recordAudit(tx.records, ctx.env, now, [{ kind: 'preferences', action: 'updated', target: change.subscriberId, subscriberId: change.subscriberId, fields }]);
  }
  return entry;
}

/** A subscriber's preference changes, newest first. */
export async function preferenceHistory(records: RecordStore, env: string, subscriberId: string, limit: number): Promise<PreferenceChange[]> {
  return docsOf<PreferenceChange>(await records.find(env, PREFERENCE_CHANGES, { i1: subscriberId, order: 'desc', limit }));
}
