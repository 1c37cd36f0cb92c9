import { explainFilters, firstFailure, type FilterContext } from '../filters/evaluate.js';
import type { BranchStepConfig } from '../schemas/branch-step.js';
import type { JsonObject, RanStep, Step } from '../schemas/index.js';
import type { PartTrace } from '../schemas/decision-record.js';

/** What a branch step decided, kept with the walk's state (`steps.<branchId>`) so a resumed walk keeps to it. */
export interface BranchResult extends JsonObject {
  /** The chosen branch's `name`, else `branches[<i>]`, or `default`. */
  branch: string;
  chosen: string[];
  notChosen: string[];
  /** The index after which the run ends (an `exit` branch), or null when it goes on. */
  exitAfter: number | null;
}

/**
 * The first branch whose conditions pass, else the default; the filters of the first branch that
 * failed, for `explain`. Pure: the same variables give the same choice.
 */
export function chooseBranch(config: BranchStepConfig, stepIndex: number, steps: readonly Step[], context: FilterContext): { result: BranchResult; firstFailed?: PartTrace } {
  let firstFailed: PartTrace | undefined;
  let label = 'default';
  let chosen = config.default;
  for (const [i, branch] of config.branches.entries()) {
    const trace = explainFilters(branch.conditions, context);
    if (trace.passed) {
      label = branch.name ?? `branches[${i}]`;
      chosen = branch.steps;
      break;
    }
    firstFailed ??= firstFailure(trace) ?? undefined;
  }
  const all = new Set([...config.branches.flatMap((b) => b.steps), ...config.default]);
  const notChosen = [...all].filter((id) => !chosen.includes(id));
  const indices = chosen.map((id) => steps.findIndex((s, i) => i > stepIndex && s._id === id)).filter((i) => i >= 0);
  const exitAfter = config.exit ? Math.max(stepIndex, ...indices) : null;
  return { result: { branch: label, chosen: [...chosen], notChosen, exitAfter }, ...(firstFailed && { firstFailed }) };
}

/** Why an earlier branch of the walk leaves this step out, or null when it runs. */
export function branchSkip(ran: readonly RanStep[], stepIndex: number, stepId: string | undefined): string | null {
  for (const step of ran) {
    if (step.type !== 'branch' || step.skipped || step.stepIndex >= stepIndex) continue;
    const result = step.result as Partial<BranchResult>;
    if (typeof result.exitAfter === 'number' && stepIndex > result.exitAfter) return `branch "${step.stepId}" took ${String(result.branch)}, which ends the run after its steps`;
    if (stepId !== undefined && result.notChosen?.includes(stepId) && !result.chosen?.includes(stepId)) return `not chosen by branch "${step.stepId}" (it took ${String(result.branch)})`;
  }
  return null;
}
