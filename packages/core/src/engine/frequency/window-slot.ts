import { windowDecision, type WindowDecision } from '../../frequency/sliding-window.js';
import type { StorageRepositories } from '../../storage.js';

/**
 * One more hit of a sliding-window key, inside the caller's transaction: the key's expired hits are
 * deleted, its window read and decided on, and the hit recorded when it fits. `recordedUntil` is when
 * the recorded hit stops counting (absent when nothing was recorded).
 */
export async function takeWindowSlot(
  tx: StorageRepositories,
  env: string,
  slot: { key: string; id: string; limit: number; lengthMs: number },
  now: Date,
): Promise<{ decision: WindowDecision; recordedUntil?: string }> {
  const { key, id, limit, lengthMs } = slot;
  const at = now.toISOString();
  await tx.frequency.prune(env, [key], at);
  const hits = (await tx.frequency.recent(env, [key], new Date(now.getTime() - lengthMs).toISOString())).get(key) ?? [];
  const decision = windowDecision(hits, limit, now, lengthMs);
  if (!decision.allowed) return { decision };
  const recordedUntil = new Date(now.getTime() + lengthMs).toISOString();
  await tx.frequency.record(env, [{ key, id, at, expiresAt: recordedUntil }]);
  return { decision, recordedUntil };
}
