import type { EngineContext } from '../context.js';
import { effectApplier, type EffectApplier } from '../runtime/job-result.js';
import { scheduleSweep } from './sweep.js';

/** Something stored by the batch can be deleted from `at` on: the sweep runs by then. */
export interface SweepDueEffect {
  readonly kind: 'sweep.due';
  readonly at: string;
}

export const sweepDue = (at: string): SweepDueEffect => ({ kind: 'sweep.due', at });

/** Makes the sweep run by the earliest instant the batch asked for. */
export function sweepDueApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<SweepDueEffect>(['sweep.due'], async (effects, { tx }) => {
    const first = effects.map(({ effect }) => effect.at).sort()[0];
    if (first !== undefined) await scheduleSweep(ctx, tx, first);
  });
}
