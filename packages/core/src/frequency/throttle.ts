import type { JsonObject } from '../schemas/enums.js';
import { throttleMetadataSchema, windowSchema, type ThrottleMetadata, type WindowLength } from '../schemas/frequency.js';
import { readPath } from '../util/path.js';
import { describeWindow, windowMs, type WindowDecision } from './sliding-window.js';

/** A throttle step as a walk reached it: its window, its limit, and the value its runs are counted under. */
export interface ThrottleRule {
  readonly window: WindowLength;
  readonly limit: number;
  /** What the runs are counted apart by (a payload value as JSON, or the code step's `throttleKey`); null: one count. */
  readonly keyValue: string | null;
}

/** A JSON workflow's throttle metadata for one event: the `key` path read from its payload. */
export function throttleRuleOf(metadata: ThrottleMetadata, payload: JsonObject): ThrottleRule {
  const value = metadata.key === undefined ? undefined : readPath(payload, metadata.key);
  return { window: { amount: metadata.amount, unit: metadata.unit }, limit: metadata.limit, keyValue: value === undefined ? null : JSON.stringify(value) };
}

/**
 * A code workflow's throttle outputs, in @novu/framework 2.13's shape (`{ type: 'fixed', amount,
 * unit, threshold?, throttleKey? }`, or `type: 'dynamic'` with `dynamicKey`, a payload path holding
 * `{ amount, unit }`) or its later one (`{ amount, timeValue, timeUnit }`, `amount` being the limit).
 * A missing `threshold` is 1: at most one run per window.
 */
export function throttleOfOutputs(outputs: JsonObject, payload: JsonObject): { ok: true; rule: ThrottleRule } | { ok: false; error: string } {
  const keyValue = typeof outputs['throttleKey'] === 'string' || typeof outputs['throttleKey'] === 'number' ? String(outputs['throttleKey']) : null;
  const later = outputs['timeValue'] !== undefined;
  const window = later
    ? { amount: outputs['timeValue'], unit: outputs['timeUnit'] }
    : outputs['type'] === 'dynamic'
      ? typeof outputs['dynamicKey'] === 'string'
        ? readPath(payload, outputs['dynamicKey'].replace(/^payload\./, ''))
        : undefined
      : { amount: outputs['amount'], unit: outputs['unit'] };
  const parsed = throttleMetadataSchema.safeParse({ ...(window as object), limit: later ? outputs['amount'] : (outputs['threshold'] ?? 1) });
  if (!parsed.success) {
    const what = outputs['type'] === 'dynamic' && !later ? 'a dynamic throttle needs `dynamicKey`, a payload path holding { amount, unit }' : later ? 'a throttle needs `amount` (the limit), `timeValue` and `timeUnit`' : 'a throttle needs `amount` and `unit` (the window) and a whole `threshold` of at least 1';
    return { ok: false, error: `${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'window'} ${i.message}`).join('; ')}` };
  }
  return { ok: true, rule: { window: windowSchema.parse({ amount: parsed.data.amount, unit: parsed.data.unit }), limit: parsed.data.limit, keyValue } };
}

/** The count a throttle step keeps: one per workflow, step, subscriber and key value. */
export const throttleCounterKey = (workflowId: string, stepId: string, subscriberId: string, rule: ThrottleRule): string =>
  `throttle:${JSON.stringify([workflowId, stepId, subscriberId, rule.keyValue])}`;

/** What a throttle step returns to the steps after it, in @novu/framework 2.13's shape. */
export const throttleResult = (decision: WindowDecision, rule: ThrottleRule): JsonObject => ({
  throttled: !decision.allowed,
  executionCount: decision.count + (decision.allowed ? 1 : 0),
  threshold: rule.limit,
  windowStart: decision.windowStart.toISOString(),
});

/** The throttle step's reason in `explain`. */
export function throttleReason(decision: WindowDecision, rule: ThrottleRule): string {
  const scope = `in the last ${describeWindow(rule.window)}${rule.keyValue === null ? '' : ` for key ${rule.keyValue}`}`;
  return decision.allowed
    ? `within the throttle: run ${decision.count + 1} of ${rule.limit} ${scope}`
    : `throttled: ${decision.count} of ${rule.limit} runs already ${scope}; the walk ends here (room again at ${decision.freesAt!.toISOString()})`;
}

export { windowMs };
