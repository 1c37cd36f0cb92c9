import { afterRun, type DebounceRecord } from '../../debounce/debounce-burst.js';
import type { TriggerResult } from '../../schemas/index.js';
import type { EngineContext } from '../context.js';
import { effectApplier, enqueue, type EffectApplier } from '../runtime/job-result.js';
import { DEBOUNCES, debounceJob, putDebounces, readDebounces } from './debounce-records.js';

/** A burst's last event ran (or was refused when it ran): the burst ends, unless triggers joined it meanwhile. */
export interface DebounceRanEffect {
  readonly kind: 'debounce.ran';
  readonly group: string;
  readonly generation: number;
  readonly transactionId: string;
  readonly folded: readonly string[];
  readonly result: TriggerResult;
}

export const debounceRan = (burst: DebounceRecord, result: TriggerResult): DebounceRanEffect => ({
  kind: 'debounce.ran',
  group: burst.group,
  generation: burst.generation,
  transactionId: burst.event.transactionId ?? result.transactionId ?? '',
  folded: burst.folded,
  result,
});

/** Ends each burst that ran, or starts the burst of the triggers that joined while it ran, with its own run. */
export function debounceRanApplier(ctx: EngineContext): EffectApplier {
  return effectApplier<DebounceRanEffect>(['debounce.ran'], async (effects, scope) => {
    const { tx, now } = scope;
    const stored = await readDebounces(tx.records, ctx.env, effects.map(({ effect }) => effect.group));
    const ended: string[] = [];
    const restarted: DebounceRecord[] = [];
    for (const { job, effect } of effects) {
      const burst = stored.get(effect.group);
      const rest = burst && afterRun(burst, effect);
      if (rest) {
        restarted.push(rest);
        scope.add(job, enqueue([debounceJob(ctx.env, rest, now)]));
      } else if (burst) ended.push(effect.group);
      const { result } = effect;
      scope.afterCommit(() => ctx.events.emit('debounce.fired', { transactionId: effect.transactionId, folded: [...effect.folded], status: result.status, ...(result.error && { error: result.error }) }));
    }
    if (ended.length > 0) await tx.records.delete(ctx.env, DEBOUNCES, ended);
    if (restarted.length > 0) await putDebounces(tx.records, ctx.env, restarted);
  });
}
