import type { EngineContext } from '../context.js';

/**
 * One small read of the storage, for readiness checks and start-up: when the environment's next job
 * is due. Resolves once the storage answers, with that instant (null when no job waits); rejects with
 * the storage's error when it cannot answer. It sets no time limit: the caller races it with its own.
 */
export function storageProbe(ctx: EngineContext): () => Promise<{ nextJobDueAt: string | null }> {
  return async () => ({ nextJobDueAt: await ctx.storage.jobs.nextDueAt(ctx.env) });
}
