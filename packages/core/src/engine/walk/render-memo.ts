import type { EngineContext } from '../context.js';

/**
 * Recipients of one trigger whose walk ran out of render time alone on a step before that step is
 * given up for the trigger's other recipients: a template that slow for three of them is slow for the
 * rest (it loops over the payload), and rendering it for a thousand would hold the process for
 * minutes. The budget of one event.
 */
export const HOPELESS_AFTER = 3;
const KEPT = 1_000;

const memos = new WeakMap<EngineContext, Map<string, number>>();
const memoOf = (ctx: EngineContext) => {
  let memo = memos.get(ctx);
  if (!memo) memos.set(ctx, (memo = new Map()));
  return memo;
};
const keyOf = (notificationId: string, stepIndex: number) => `${notificationId}\u0000${stepIndex}`;

/** A walk of the notification ran out of render time alone on this step. */
export function renderSpentAlone(ctx: EngineContext, notificationId: string, stepIndex: number): void {
  const memo = memoOf(ctx);
  const key = keyOf(notificationId, stepIndex);
  const count = (memo.get(key) ?? 0) + 1;
  memo.delete(key);
  if (memo.size >= KEPT) memo.delete(memo.keys().next().value as string);
  memo.set(key, count);
}

/** The notification's steps given up for its other recipients (in this process). */
export function hopelessSteps(ctx: EngineContext, notificationId: string, steps: number): ReadonlySet<number> {
  const memo = memos.get(ctx);
  const given = new Set<number>();
  if (!memo) return given;
  for (let stepIndex = 0; stepIndex < steps; stepIndex++) if ((memo.get(keyOf(notificationId, stepIndex)) ?? 0) >= HOPELESS_AFTER) given.add(stepIndex);
  return given;
}
