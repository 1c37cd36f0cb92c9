import type { EngineContext } from '../context.js';

/** Whether the engine's last write transaction (a trigger's commit, a batch's commit) failed, and since when. */
export interface WriteHealth {
  readonly ok: boolean;
  /** The error of the first failure in the current run of failures. */
  readonly error?: string;
  /** When that run of failures began (ISO, the engine's clock). */
  readonly since?: string;
}

const states = new WeakMap<EngineContext, { error: string; since: string } | null>();

/** A write transaction committed: the engine writes again. */
export function writeSucceeded(ctx: EngineContext): void {
  if (states.get(ctx)) states.set(ctx, null);
}

/** A write transaction failed (a full disk, a lost database): health says so until one commits. */
export function writeFailed(ctx: EngineContext, error: unknown): void {
  if (states.get(ctx)) return;
  states.set(ctx, { error: error instanceof Error ? error.message : String(error), since: ctx.now() });
}

/** Runs a write transaction, noting whether it committed. */
export async function watchWrite<T>(ctx: EngineContext, write: () => Promise<T>): Promise<T> {
  try {
    const result = await write();
    writeSucceeded(ctx);
    return result;
  } catch (error) {
    writeFailed(ctx, error);
    throw error;
  }
}

export function writeHealth(ctx: EngineContext): WriteHealth {
  const failing = states.get(ctx);
  return failing ? { ok: false, ...failing } : { ok: true };
}
