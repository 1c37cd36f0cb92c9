import type { WindowHit } from '../../storage.js';
import type { EngineContext } from '../context.js';
import { sweepDue } from '../retention/retention-effects.js';
import { effectApplier, enqueue, ofKind, type EffectApplier } from '../runtime/job-result.js';
import type { SlotRef } from './caps.js';
import { traced } from '../walk/walk-effects.js';
import { runCompleted } from '../webhooks/webhook-effects.js';
import { settleThrottle, type ThrottleArrival } from './settle-throttle.js';

/** The walk reached a throttle step: the commit counts the run, and the walk goes on or ends there. */
export interface ThrottleArrivalEffect {
  readonly kind: 'throttle.arrival';
  readonly arrival: ThrottleArrival;
}

/** Sends the caps count: the commit records them. */
export interface WindowHitsEffect {
  readonly kind: 'window.hits';
  readonly hits: readonly WindowHit[];
}

/** Slots of sends that did not go after all, given back by the commit. */
export interface SlotsGivenBackEffect {
  readonly kind: 'window.given-back';
  readonly slots: readonly SlotRef[];
}

export type FrequencyEffect = ThrottleArrivalEffect | WindowHitsEffect | SlotsGivenBackEffect;

export const throttleArrival = (arrival: ThrottleArrival): ThrottleArrivalEffect => ({ kind: 'throttle.arrival', arrival });
export const windowHits = (hits: readonly WindowHit[]): WindowHitsEffect | null => (hits.length > 0 ? { kind: 'window.hits', hits } : null);
export const slotsGivenBack = (slots: readonly SlotRef[]): SlotsGivenBackEffect | null => (slots.length > 0 ? { kind: 'window.given-back', slots } : null);

/**
 * Counts each throttle arrival against its window as stored now, in the order the batch's jobs ran:
 * the walk goes on (its next job is queued) or ends there (the run is complete).
 */
export function throttleApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<ThrottleArrivalEffect>(['throttle.arrival'], async (effects, { tx, now, add }) => {
    for (const { job, effect } of effects) {
      const settled = await settleThrottle(tx, ctx.env, effect.arrival, now);
      add(job, traced([settled.entry])!);
      if (settled.enqueue.length > 0) add(job, enqueue(settled.enqueue));
      if (settled.throttled) add(job, runCompleted(job));
      // Counted keys that are never counted again are pruned by the sweep.
      if (settled.recordedUntil) add(job, sweepDue(settled.recordedUntil));
    }
  });
}

/** Gives back the slots of sends that did not go, then records the sends the caps counted, pruning what expired of their keys first. */
export function windowHitsApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<WindowHitsEffect | SlotsGivenBackEffect>(['window.given-back', 'window.hits'], async (effects, { tx, now, add }) => {
    const givenBack = ofKind<SlotsGivenBackEffect>(effects, 'window.given-back').flatMap(({ effect }) => effect.slots);
    if (givenBack.length > 0) await tx.frequency.forget(ctx.env, givenBack);
    const hits = ofKind<WindowHitsEffect>(effects, 'window.hits').flatMap(({ effect }) => effect.hits);
    if (hits.length === 0) return;
    await tx.frequency.prune(ctx.env, hits.map((h) => h.key), now.toISOString());
    await tx.frequency.record(ctx.env, hits);
    const first = hits.map((h) => h.expiresAt).sort()[0];
    if (first !== undefined) add(effects[0]!.job, sweepDue(first));
  });
}
