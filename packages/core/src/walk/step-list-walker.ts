import { explainFilters, firstFailure } from '../filters/evaluate.js';
import type { Channel, DelayMetadata, Step, StepVariant, ThrottleMetadata, Workflow } from '../schemas/index.js';
import { throttleRuleOf } from '../frequency/throttle.js';
import { CHANNELS } from '../schemas/enums.js';
import { renderStep } from '../templates/render-step.js';
import { withEmail } from '../email/email-step.js';
import { componentBody } from '../email/component-step.js';
import { RenderBudgetSpent } from '../templates/render.js';
import { delayDueAt } from '../timing/delay-due-at.js';
import { delayOverride } from '../timing/delay-override.js';
import { channelGate } from './channel-gate.js';
import type { TraceEntry } from './trace.js';
import { emailLocale, emailVariables, translationNote, walkVariables } from './walk-variables.js';
import type { Delivery, WalkInput, WalkResult, Walker } from './walker.js';
import type { RanStep } from '../schemas/index.js';
import { branchSkip } from './branch-walk.js';
import { flowStep } from './flow-steps.js';
import { waitSpecOf, withInputState } from '../waits/wait-step.js';

const isChannel = (type: string): type is Channel => (CHANNELS as readonly string[]).includes(type);

/** The step types whose walk ends inside the trigger's transaction: only in-app messages. */
const runsInline = (step: StepVariant) => step.template.type === 'in_app';

/** An active step's base and active variants: every form it may take in a walk. */
const formsOf = (step: Step): StepVariant[] => [step, ...step.variants.filter((v) => v.active)];

/**
 * Walks a workflow's steps for one subscriber from `startIndex`: picks each step's variant, applies
 * filters, renders channel steps, and stops at a delay (returning where to resume). Pure: it reads no
 * storage and no clock, so the same input always gives the same walk. Async only for an email step
 * that names a component (React's render is); every other step renders synchronously.
 */
export async function walkSteps(input: WalkInput): Promise<WalkResult> {
  const { workflow, notification, now } = input;
  const variables = walkVariables(input);
  const deliveries: Delivery[] = [];
  const trace: TraceEntry[] = [];
  let failedOverBudget: number | undefined;
  // Branch choices and http answers of this run, carried with the walk's state to its later jobs.
  const ran: RanStep[] = [...(input.state?.steps ?? [])];
  const over = () => ({ ...(failedOverBudget !== undefined && { failedOverBudget }), ...(ran.length > 0 && { state: { ...input.state, steps: [...ran] } }) });
  for (let stepIndex = input.startIndex; stepIndex < workflow.steps.length; stepIndex++) {
    const base = workflow.steps[stepIndex]!;
    const entry = (decision: TraceEntry['decision'], reason: string, extra: Partial<TraceEntry> = {}) =>
      trace.push({ stepIndex, stepId: base._id ?? String(stepIndex), type: base.template.type, decision, reason, ...extra });
    const left = branchSkip(ran, stepIndex, base._id);
    if (left !== null) {
      entry('skipped', left);
      continue;
    }
    if (!base.active) {
      entry('skipped', 'step is inactive');
      continue;
    }
    const variantIndex = base.variants.findIndex((v) => v.active && explainFilters(v.filters, variables).passed);
    const step: StepVariant = variantIndex >= 0 ? base.variants[variantIndex]! : base;
    const chosen = variantIndex >= 0 ? { variantIndex } : {};
    if (variantIndex < 0) {
      const filters = explainFilters(base.filters, variables);
      if (!filters.passed) {
        const failed = firstFailure(filters);
        entry('skipped', 'a step filter did not pass', failed ? { failedFilter: failed } : {});
        continue;
      }
    }
    const type = step.template.type;
    if (type === 'delay') {
      const due = delayDueAt((step.metadata ?? { type: 'regular' }) as DelayMetadata, now, {
        payload: notification.payload,
        timeZone: input.subscriber.timezone,
        override: delayOverride(notification.overrides),
      });
      if (!due.ok) {
        entry('failed', due.error, chosen);
        if (step.shouldStopOnFail) break;
        continue;
      }
      if (due.runAt.getTime() > now.getTime()) {
        entry('delayed', `delayed until ${due.runAt.toISOString()}`, chosen);
        return { deliveries, resume: { stepIndex: stepIndex + 1, runAt: due.runAt }, trace, ...over() };
      }
      entry('delayed', 'the delay had already passed', chosen);
      continue;
    }
    if (type === 'digest') return { deliveries, resume: null, digest: { stepIndex, step }, trace, ...over() };
    if (type === 'throttle') return { deliveries, resume: null, throttle: { stepIndex, stepId: base._id ?? String(stepIndex), rule: throttleRuleOf(step.metadata as ThrottleMetadata, notification.payload) }, trace, ...over() };
    if (type === 'branch' || type === 'http' || type === 'custom') {
      let flow: ReturnType<typeof flowStep>;
      try {
        flow = flowStep(step, stepIndex, base, workflow.steps, variables, input.renderBudget);
      } catch (error) {
        if (!(error instanceof RenderBudgetSpent)) throw error;
        entry('held', `${error.message}: the walk goes on from this step in a batch of its own`, chosen);
        return { deliveries, resume: null, spent: { stepIndex }, trace, ...over() };
      }
      if (flow.kind === 'http') return { deliveries, resume: null, http: flow.call, trace, ...over() };
      if (flow.ran) {
        const again = ran.findIndex((s) => s.stepIndex === stepIndex);
        if (again >= 0) ran.splice(again, 1);
        ran.push(flow.ran);
        (variables['steps'] as Record<string, unknown>)[flow.ran.stepId] = flow.ran.result;
      }
      if (flow.kind === 'ran') entry(flow.entry.decision, flow.entry.reason, { ...chosen, ...(flow.entry.failedFilter && { failedFilter: flow.entry.failedFilter }) });
      else entry('failed', flow.ran ? `${flow.reason}; the run goes on (continueOnFailure)` : `${flow.reason}; the run ends here`, chosen);
      if (flow.kind === 'failed' && !flow.ran) break;
      continue;
    }
    if (type === 'wait') {
      const wait = waitSpecOf(step.metadata);
      if (wait.ok) return { deliveries, resume: null, wait: { stepIndex, stepId: base._id ?? String(stepIndex), spec: wait.spec }, trace, ...over() };
      entry('failed', wait.error, chosen);
      if (step.shouldStopOnFail) break;
      continue;
    }
    if (!isChannel(type)) continue;
    const gate = channelGate(input, workflow, type);
    if (gate.kind === 'skip') {
      entry('skipped', gate.reason, chosen);
      continue;
    }
    if (gate.kind === 'hold') {
      entry('held', gate.reason, chosen);
      return { deliveries, resume: { stepIndex, runAt: gate.runAt }, trace, ...over() };
    }
    if (input.hopeless?.has(stepIndex)) {
      entry('failed', 'template failed to render: its templates ran out of render time alone for several recipients of this trigger; not rendered again for the others', chosen);
      if (step.shouldStopOnFail) break;
      continue;
    }
    try {
      const seen = type === 'email' ? emailVariables(variables, input) : variables;
      const texts = renderStep(step.template, seen, input.renderBudget);
      const component = type === 'email' ? step.template.component : undefined;
      const rendered = component === undefined ? texts : { ...texts, content: await componentBody(component, step.template, seen, input.look, input.renderBudget) };
      deliveries.push({ stepIndex, step, channel: type, rendered: type === 'email' ? withEmail({ rendered, template: step.template, workflow, look: input.look, variables: seen, locale: emailLocale(input), budget: input.renderBudget }) : rendered });
      entry('delivered', `rendered for ${type}`, { ...chosen, ...translationNote(seen) });
    } catch (error) {
      // Spent by this step alone, in a walk that rendered nothing before it, the step fails; otherwise it runs later.
      if (error instanceof RenderBudgetSpent && (!input.renderBudget?.alone || deliveries.length > 0 || error.spentBy === 'busy')) {
        entry('held', `${error.message}: the walk goes on from this step in a batch of its own`, chosen);
        return { deliveries, resume: null, spent: { stepIndex }, trace, ...over() };
      }
      entry('failed', `template failed to render: ${error instanceof Error ? error.message : String(error)}`, chosen);
      if (error instanceof RenderBudgetSpent) failedOverBudget = stepIndex;
      if (step.shouldStopOnFail) break;
    }
  }
  return { deliveries, resume: null, trace, ...over() };
}

/** The walker of workflows stored as data: the workflow's list of steps, walked in order. */
export const stepListWalker: Walker = {
  walksInline: (workflow: Workflow) => workflow.steps.every((step) => !step.active || formsOf(step).every(runsInline)),
  runsUserCode: () => false,
  // The results of the wait steps that ran (`steps.<id>.*`) go on with the walk.
  walk: async (input) => withInputState(await walkSteps(input), input),
};
