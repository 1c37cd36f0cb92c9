import { withEmail } from '../email/email-step.js';
import { resolvedContext } from '../contexts/context-keys.js';
import { RenderBudgetSpent, TRANSLATOR } from '../templates/render.js';
import type { Translator } from '../translations/translator.js';
import { emailLocale, emailVariables, runLocale, walkVariables } from './walk-variables.js';
import { messageId } from '../messages/build-message.js';
import type { JsonObject, Message, RanStep, StepVariant, WalkState, Workflow } from '../schemas/index.js';
import { CHANNELS } from '../schemas/enums.js';
import { addTime } from '../timing/add-time.js';
import { listedErrorLines } from '../listed-issues.js';
import { delayDueAt } from '../timing/delay-due-at.js';
import { nextCronTime, parseCron } from '../timing/cron.js';
import { channelGate } from './channel-gate.js';
import { throttleOfOutputs } from '../frequency/throttle.js';
import { contentOfOutputs, delayOfOutputs, digestOfOutputs, type CodeDelay } from './code-outputs.js';
import type { CodeStepDeclaration, CodeStepType, CodeWorkflow } from './code-workflow.js';
import type { TraceEntry } from './trace.js';
import { codeHttpCall } from './code-http.js';
import { waitSpecOf } from '../waits/wait-step.js';
import type { Delivery, PrecomputeOptions, WalkInput, WalkResult, WalkSubject, Walker } from './walker.js';
import { replayRun, resultsKey, type PrecomputedRuns } from './code-run-memo.js';
import type { CodeRunInput, CodeStepRun } from './code-workflow.js';

type Channel = (typeof CHANNELS)[number];
const isChannel = (type: CodeStepType): type is Channel => (CHANNELS as readonly string[]).includes(type);

/** An in-app step's result: the message's flags as stored when a later step runs (unread when it was never sent). */
function inAppResult(message: Message | undefined): JsonObject {
  return { seen: message?.seen ?? false, read: message?.read ?? false, lastSeenDate: message?.lastSeenDate ?? null, lastReadDate: message?.lastReadDate ?? null };
}

/**
 * What each step that ran returns to the function on replay; an in-app step's flags are read from its
 * stored message (one made in this very walk is unread).
 */
function resultsOf(steps: readonly RanStep[], input: WalkInput): Map<string, JsonObject> {
  const results = new Map<string, JsonObject>();
  for (const step of steps) {
    if (step.type !== 'in_app') results.set(step.stepId, step.result);
    else results.set(step.stepId, inAppResult(step.skipped ? undefined : input.messages?.get(messageId(input.notification._id, input.subscriber._id, step.stepIndex))));
  }
  return results;
}

/** When a delay step's walk goes on, or why it cannot. */
function delayRunAt(delay: CodeDelay, input: WalkInput): { ok: true; runAt: Date } | { ok: false; error: string } {
  const zone = input.subscriber.timezone ?? 'UTC';
  if (delay.kind === 'invalid') return { ok: false, error: delay.error };
  if (delay.kind === 'regular') return { ok: true, runAt: addTime(input.now, delay.amount, delay.unit, zone) };
  if (delay.kind === 'dynamic') return delayDueAt({ type: 'scheduled', delayPath: delay.path }, input.now, { payload: input.notification.payload });
  const schedule = parseCron(delay.cron);
  if ('error' in schedule) return { ok: false, error: `cron: ${schedule.error}` };
  const runAt = nextCronTime(schedule, input.now, zone);
  return runAt ? { ok: true, runAt } : { ok: false, error: `cron "${delay.cron}" never fires` };
}

/**
 * The run's end when a deploy changed the workflow's code under it and removed the step it was to go
 * on with: nothing more of it runs (a step replayed in another place could send twice), and explain says why.
 */
function goneNextStep(input: WalkInput, steps: readonly CodeStepDeclaration[]): TraceEntry | null {
  const next = input.state?.next;
  const was = input.notification.revision;
  const now = input.workflow.revision;
  if (next === undefined || was === undefined || was === now || steps.some((s) => s.stepId === next)) return null;
  return {
    stepIndex: input.startIndex,
    stepId: next,
    type: 'custom',
    decision: 'skipped',
    reason: `the workflow's code changed since this run started (revision ${String(was)}, now ${String(now)}) and its next step "${next}" no longer exists: the run ends here`,
  };
}

/** A step variant for a code step: what messages and digests point back to. */
const stepOf = (stepId: string, type: Delivery['channel'] | 'digest', more: Pick<StepVariant, 'metadata' | 'fallbackTo' | 'ttl'> = {}): StepVariant => ({
  _id: stepId,
  name: stepId,
  active: true,
  shouldStopOnFail: false,
  template: { type },
  filters: [],
  ...(more.metadata && { metadata: more.metadata }),
  ...(more.fallbackTo && { fallbackTo: more.fallbackTo }),
  ...(more.ttl && { ttl: more.ttl }),
});

/** Steps one run may reach that the discovery run did not (behind an `if` on a step's result). */
const MAX_UNDISCOVERED_STEPS = 50;

/**
 * The index of a step the discovery run did not reach (a step behind a plain `if` on an earlier
 * step's result, in a workflow with `dynamicSteps`): after the declared ones, in the order this run reaches them. A run replays the
 * same results, so it reaches them in the same order and each keeps its index (and its message id);
 * -1 once a run reached too many.
 */
function undiscoveredIndex(declared: number, ran: readonly RanStep[], stepId: string): number {
  const earlier = ran.filter((s) => s.stepIndex >= declared && s.stepId !== stepId).length;
  return earlier < MAX_UNDISCOVERED_STEPS ? declared + earlier : -1;
}

/**
 * The walker of workflows written in code: replays the function, each step that already ran giving
 * its stored result, and handles the first new step as the engine handles a stored one (preferences,
 * schedule, delay, digest). A walk stops after a provider step that has steps after it, so a step
 * after it never runs before the delivery it follows is stored.
 */
export function codeWalker(catalog: { readonly workflows: ReadonlyMap<string, CodeWorkflow>; stepsOf(id: string): readonly CodeStepDeclaration[] | undefined }, defaultLocale: string): Walker {
  // A workflow reaches a walker only once found through the catalog, so its steps are discovered.
  const codeOf = (workflow: Workflow): { readonly code: CodeWorkflow; readonly steps: readonly CodeStepDeclaration[] } => {
    const code = catalog.workflows.get(workflow._id);
    const steps = catalog.stepsOf(workflow._id);
    if (!code || !steps) throw new Error(`workflow ${workflow._id} is not a discovered code workflow`);
    return { code, steps };
  };

  async function walk(input: WalkInput): Promise<WalkResult> {
    const { code, steps } = codeOf(input.workflow);
    const ran: RanStep[] = [...(input.state?.steps ?? [])];
    const deliveries: Delivery[] = [];
    const trace: TraceEntry[] = [];
    /** The walk so far; a walk that stops names the declared step it goes on with, checked when it resumes under changed code. */
    const state = (goesOnAt?: number): WalkState => {
      const next = goesOnAt === undefined ? undefined : steps[goesOnAt]?.stepId;
      return next === undefined ? { steps: [...ran] } : { steps: [...ran], next };
    };
    const end = (): WalkResult => ({ deliveries, resume: null, trace, state: state() });
    const fail = (stepIndex: number, stepId: string, type: TraceEntry['type'], reason: string): WalkResult => {
      trace.push({ stepIndex, stepId, type, decision: 'failed', reason });
      return end();
    };

    const gone = goneNextStep(input, steps);
    if (gone) {
      trace.push(gone);
      return end();
    }
    // Each declared step runs at most once per walk, so the loop ends even if the function misbehaves.
    for (let runs = 0; runs <= steps.length + MAX_UNDISCOVERED_STEPS; runs++) {
      const results = resultsOf(ran, input);
      const translation = translationOf(input, defaultLocale);
      const run = input.precomputed
        ? replayRun(input.precomputed, { notification: input.notification, subscriber: input.subscriber, locale: translation.locale, results })
        : await code.runNext({ payload: input.notification.payload, subscriber: input.subscriber, context: resolvedContext(input.notification.context), environmentId: input.notification._environmentId, results, ...translation });
      if (run.kind === 'end') return end();
      if (run.kind === 'failed') {
        const index = run.stepId === null ? -1 : steps.findIndex((s) => s.stepId === run.stepId);
        return fail(Math.max(index, 0), run.stepId ?? '', index >= 0 ? steps[index]!.type : 'custom', run.error);
      }
      const declared = steps.findIndex((s) => s.stepId === run.stepId);
      const stepIndex = declared >= 0 || code.dynamicSteps !== true ? declared : undiscoveredIndex(steps.length, ran, run.stepId);
      if (stepIndex < 0 || (declared >= 0 && steps[stepIndex]!.type !== run.type)) {
        return fail(Math.max(stepIndex, 0), run.stepId, run.type, `step "${run.stepId}" (${run.type}) is not a step the workflow declared: declare every step on every run, and leave one out with \`skip\``);
      }
      if (ran.some((s) => s.stepId === run.stepId)) return fail(stepIndex, run.stepId, run.type, `step "${run.stepId}" ran twice in one run of the workflow: step ids must be unique`);
      const entry = (decision: TraceEntry['decision'], reason: string) => trace.push({ stepIndex, stepId: run.stepId, type: run.type, decision, reason });
      const keep = (result: JsonObject, skipped = false) => ran.push({ stepId: run.stepId, stepIndex, type: run.type, skipped, result });

      if (run.skipped) {
        entry('skipped', 'its `skip` returned true');
        keep({}, true);
        continue;
      }
      if (run.type === 'custom') {
        entry('ran', 'custom step ran; its result is kept for the steps after it');
        keep(run.outputs);
        continue;
      }
      if (run.type === 'http') {
        // The walk job sends it (outside any transaction); its answer is the step's result when the function is replayed.
        const http = codeHttpCall(run.stepId, stepIndex, run.outputs);
        if (!http.ok) return fail(stepIndex, run.stepId, run.type, `step "${run.stepId}": ${http.error}`);
        return { deliveries, resume: null, http: http.call, trace, state: state(stepIndex + 1) };
      }
      if (run.type === 'throttle') {
        const throttle = throttleOfOutputs(run.outputs, input.notification.payload);
        if (!throttle.ok) return fail(stepIndex, run.stepId, run.type, throttle.error);
        return { deliveries, resume: null, throttle: { stepIndex, stepId: run.stepId, rule: throttle.rule }, trace, state: state(stepIndex + 1) };
      }
      if (run.type === 'wait') {
        const wait = waitSpecOf(run.outputs);
        if (!wait.ok) return fail(stepIndex, run.stepId, run.type, wait.error);
        return { deliveries, resume: null, wait: { stepIndex, stepId: run.stepId, spec: wait.spec }, trace, state: state(stepIndex + 1) };
      }
      if (run.type === 'delay') {
        const due = delayRunAt(delayOfOutputs(run.outputs), input);
        if (!due.ok) return fail(stepIndex, run.stepId, run.type, due.error);
        keep({ duration: Math.max(0, due.runAt.getTime() - input.now.getTime()) });
        if (due.runAt.getTime() > input.now.getTime()) {
          entry('delayed', `delayed until ${due.runAt.toISOString()}`);
          return { deliveries, resume: { stepIndex: stepIndex + 1, runAt: due.runAt }, trace, state: state(stepIndex + 1) };
        }
        entry('delayed', 'the delay had already passed');
        continue;
      }
      if (run.type === 'digest') {
        // The walk that goes on after this digest's flush: its events are the step's result.
        if (input.digestEvents && input.startIndex === stepIndex + 1) {
          keep({ events: input.digestEvents.map((e) => ({ id: e.id, time: e.time, payload: e.payload })) });
          continue;
        }
        const digest = digestOfOutputs(run.outputs, run.cadence);
        if (!digest.ok) return fail(stepIndex, run.stepId, run.type, digest.error);
        return { deliveries, resume: null, digest: { stepIndex, step: stepOf(run.stepId, 'digest', { metadata: digest.metadata }) }, trace, state: state(stepIndex) };
      }
      if (!isChannel(run.type)) return fail(stepIndex, run.stepId, run.type, `unknown step type ${String(run.type)}`);
      const gate = channelGate(input, input.workflow, run.type);
      if (gate.kind === 'skip') {
        entry('skipped', gate.reason);
        keep({}, true);
        continue;
      }
      if (gate.kind === 'hold') {
        entry('held', gate.reason);
        return { deliveries, resume: { stepIndex, runAt: gate.runAt }, trace, state: state(stepIndex) };
      }
      let rendered = contentOfOutputs(run.type, run.outputs);
      if (run.type === 'email') {
        try {
          rendered = withEmail({ rendered, template: {}, workflow: input.workflow, look: input.look, variables: emailVariables(walkVariables(input), input), locale: emailLocale(input), budget: input.renderBudget });
        } catch (error) {
          // The layout's render ran out of time: this step runs again later, in a batch of its own (its resolver's output is replayed).
          if (error instanceof RenderBudgetSpent && (!input.renderBudget?.alone || deliveries.length > 0 || error.spentBy === 'busy')) {
            entry('held', `${error.message}: the walk goes on from this step in a batch of its own`);
            return { deliveries, resume: null, spent: { stepIndex }, trace, state: state(stepIndex) };
          }
          return fail(stepIndex, run.stepId, run.type, `the email could not be laid out: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const delivery: Delivery = { stepIndex, step: stepOf(run.stepId, run.type, { ...(run.fallbackTo && { fallbackTo: run.fallbackTo }), ...(run.ttl && { ttl: run.ttl }) }), channel: run.type, rendered };
      deliveries.push(delivery);
      entry('delivered', `${run.type} outputs from the step's resolver`);
      keep({});
      if (run.type !== 'in_app' && (stepIndex < steps.length - 1 || declared < 0)) return { deliveries, resume: { stepIndex: stepIndex + 1, runAt: input.now }, trace, state: state(stepIndex + 1) };
    }
    return fail(steps.length, '', 'custom', 'the workflow declared more steps than it has');
  }

  return {
    // Only workflows of in-app steps alone end at once; a custom step's effect must not hang on the trigger's transaction.
    walksInline: (workflow) => codeOf(workflow).steps.every((s) => s.type === 'in_app'),
    runsUserCode: () => true,
    walk,
    async preparePayload(workflow, payload) {
      const prepared = await codeOf(workflow).code.preparePayload(payload);
      // A schema can fail once per element of the payload: the trigger's answer lists a bounded few.
      return prepared.ok ? prepared : { ok: false, errors: listedErrorLines(prepared.errors) };
    },
    precompute: (workflow, subject, run) => precompute(codeOf(workflow), subject, run),
    messagesToRead(workflow, state, notificationId, subscriberInternalId) {
      return (state?.steps ?? []).filter((s) => s.type === 'in_app' && !s.skipped).map((s) => messageId(notificationId, subscriberInternalId, s.stepIndex));
    },
  };
}

/**
 * The runs a walk from the first step makes of a workflow of in-app steps alone, made now: each
 * in-app step's result is the unread one whether it is sent or skipped, so the runs do not depend on
 * the subscriber's preferences, read later. A run that translates (its catalogs are read with the
 * walk) is left to the walk; a workflow whose runs may reach undeclared steps is not made beforehand.
 * The runs get their own copy of the payload and context: the notification is not stored yet, and
 * code that changes what it is given must not change what is stored.
 */
async function precompute({ code, steps }: { readonly code: CodeWorkflow; readonly steps: readonly CodeStepDeclaration[] }, subject: Pick<WalkSubject, 'notification' | 'subscriber'>, { locale, abandoned }: PrecomputeOptions): Promise<PrecomputedRuns | null> {
  if (code.dynamicSteps === true || !steps.every((s) => s.type === 'in_app')) return null;
  const { notification, subscriber } = subject;
  const own = structuredClone({ payload: notification.payload, context: notification.context });
  const runs = new Map<string, CodeStepRun>();
  const results = new Map<string, JsonObject>();
  for (let made = 0; made <= steps.length; made++) {
    if (abandoned()) return null;
    let translated = false;
    const runKey = resultsKey(results)!;
    const input: CodeRunInput = {
      payload: own.payload,
      subscriber,
      context: resolvedContext(own.context),
      environmentId: notification._environmentId,
      results: new Map(results),
      t: (key) => {
        translated = true;
        throw new Error(`the translation "${key}" is made with the walk`);
      },
      locale,
    };
    const run = await code.runNext(input);
    if (translated) break;
    runs.set(runKey, run);
    if (run.kind !== 'step' || run.type !== 'in_app') break;
    results.set(run.stepId, inAppResult(undefined));
  }
  return { notification, subscriber, locale, runs };
}

const untranslated = (key: string) => {
  throw new Error(`the translation "${key}" is missing: the environment has no translation catalogs`);
};

/** The run's `t` and locale: the walk's translator (see walkVariables), or one that refuses every key. */
function translationOf(input: WalkInput, defaultLocale: string): { t: (key: string, values?: Record<string, unknown>) => string; locale: string } {
  const translate = (walkVariables(input) as { [TRANSLATOR]?: Translator })[TRANSLATOR];
  return translate ? { t: (key, values) => translate.t(key, values), locale: translate.locale } : { t: untranslated, locale: runLocale(input, defaultLocale, false) };
}
