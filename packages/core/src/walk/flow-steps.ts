import type { FilterContext } from '../filters/evaluate.js';
import type { JsonObject, RanStep, Step, StepVariant } from '../schemas/index.js';
import { RenderBudgetSpent, renderTemplate, type RenderBudget } from '../templates/render.js';
import { chooseBranch } from './branch-walk.js';
import { renderHttpRequest, renderValue, type HttpStepCall } from './http-request.js';
import type { TraceEntry } from './trace.js';

/** What a JSON workflow's `branch`, `http` or `custom` step comes to in the walk. */
export type FlowStepOutcome =
  /** It decided (a branch): its result is kept with the walk's state, and the walk goes on. */
  | { readonly kind: 'ran'; readonly ran: RanStep; readonly entry: Pick<TraceEntry, 'decision' | 'reason' | 'failedFilter'> }
  /** The walk stops here: the walk job sends the request. */
  | { readonly kind: 'http'; readonly call: HttpStepCall }
  /** It failed before any request: `ran` (its error kept) when the run goes on, else the run ends. */
  | { readonly kind: 'failed'; readonly reason: string; readonly ran?: RanStep };

/** An `http` step's result after a final failure: `steps.<stepId>.error`. */
export const httpFailure = (reason: string, status?: number) => ({ error: { message: reason, ...(status !== undefined && { status }) } });

/** Where a step's result goes in `steps.<key>`: its `uuid` (Novu's stepId) when it has one, else its `_id`. */
export const resultKeyOf = (step: Pick<Step, '_id' | 'uuid'>, stepIndex: number): string => step.uuid ?? step._id ?? String(stepIndex);

/**
 * A `branch` step's choice, a `custom` step's data rendered, or an `http` step's request rendered
 * (the request itself is the walk job's). Pure. Throws RenderBudgetSpent for the walker to hold the walk.
 */
export function flowStep(step: StepVariant, stepIndex: number, base: Step, steps: readonly Step[], variables: Record<string, unknown> & FilterContext, budget?: RenderBudget): FlowStepOutcome {
  const stepId = base._id ?? String(stepIndex);
  const resultKey = resultKeyOf(base, stepIndex);
  if (step.template.type === 'custom') {
    try {
      const result = renderValue(step.template.data ?? {}, (text) => renderTemplate(text, variables, { budget })) as JsonObject;
      return { kind: 'ran', ran: { stepId: resultKey, stepIndex, type: 'custom', skipped: false, result }, entry: { decision: 'ran', reason: `custom step: its data is kept as steps.${resultKey}` } };
    } catch (error) {
      if (error instanceof RenderBudgetSpent) throw error;
      return { kind: 'failed', reason: `its data failed to render: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  if (step.template.type === 'branch' && step.branch) {
    const { result, firstFailed } = chooseBranch(step.branch, stepIndex, steps, variables);
    const then = result.exitAfter === null ? 'the run goes on after them' : 'the run ends after them';
    const which = result.chosen.length > 0 ? `steps ${result.chosen.map((id) => `"${id}"`).join(', ')}` : 'no steps';
    return {
      kind: 'ran',
      ran: { stepId, stepIndex, type: 'branch', skipped: false, result },
      entry: { decision: 'ran', reason: `took ${result.branch}: ${which}; ${then}`, ...(result.branch === 'default' && firstFailed && { failedFilter: firstFailed }) },
    };
  }
  const config = step.http;
  if (step.template.type !== 'http' || !config) return { kind: 'failed', reason: `a ${step.template.type} step without its settings` };
  const continueOnFailure = config.continueOnFailure ?? false;
  try {
    const request = renderHttpRequest(config, variables, budget);
    return { kind: 'http', call: { stepIndex, stepId, resultKey, request, continueOnFailure, ...(config.responseSchema && { responseSchema: config.responseSchema }), ...(config.retries !== undefined && { retries: config.retries }) } };
  } catch (error) {
    if (error instanceof RenderBudgetSpent) throw error;
    const reason = `the request failed to render: ${error instanceof Error ? error.message : String(error)}`;
    return { kind: 'failed', reason, ...(continueOnFailure && { ran: { stepId: resultKey, stepIndex, type: 'http', skipped: false, result: httpFailure(reason) } }) };
  }
}
