import type { JsonObject, RanStep, WalkState } from '../schemas/index.js';

/**
 * `steps.<stepId>.*` of a walk: the results of the steps that ran before (an `http` step's answer, a
 * branch's choice, a code step's output), from the walk's state.
 */
export function stepResults(state: WalkState | undefined): Record<string, JsonObject> {
  const results: Record<string, JsonObject> = {};
  for (const step of state?.steps ?? []) if (!step.skipped) results[step.stepId] = step.result;
  return results;
}

/** The walk's state with one more step that ran (a step that ran before at its index is replaced). */
export function withRanStep(state: WalkState | undefined, step: RanStep): WalkState {
  const steps = (state?.steps ?? []).filter((s) => s.stepIndex !== step.stepIndex);
  return { ...state, steps: [...steps, step] };
}
