import { type Channel, type JsonObject } from '@tidings/core';
import { renderTemplate, type CodeRunInput, type CodeStepDeclaration, type CodeStepRun, type CodeStepType } from '@tidings/core/internal';
import { ttlSchema } from '@tidings/core/schemas';
import { cadenceOption } from './cadence.js';
import { channelOutputIssues } from './outputs.js';
import { check, type FieldIssue, type Schema } from './schema.js';
import type { Step } from './types.js';
import { httpOutputs, httpResult, type HttpStepOptions } from './http-step.js';

/** Thrown through the user's function to stop it at the step it reached. */
class StopAtStep {
  constructor(readonly run: CodeStepRun) {}
}

const CHANNEL_STEPS = new Set<CodeStepType>(['in_app', 'email', 'sms', 'chat', 'push']);
const describe = (issues: readonly FieldIssue[]) => issues.map((i) => `${i.path}: ${i.message}`).join('; ');
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Results steps give while the steps are discovered: the shape a later line may read, empty. */
const PLACEHOLDERS: Record<CodeStepType, JsonObject> = {
  in_app: { seen: false, read: false, lastSeenDate: null, lastReadDate: null },
  email: {},
  sms: {},
  chat: {},
  push: {},
  digest: { events: [] },
  delay: { duration: 0 },
  throttle: { throttled: false, executionCount: 0, currentCount: 0, threshold: 0, windowStart: new Date(0).toISOString() },
  custom: {},
  http: {},
  wait: { matched: false },
};

/** Every string in controls rendered with Liquid against the run's data, as @novu/framework compiles controls. */
function renderControls(value: unknown, variables: Record<string, unknown>): unknown {
  if (typeof value === 'string') return value.includes('{') ? renderTemplate(value, variables) : value;
  if (Array.isArray(value)) return value.map((item) => renderControls(item, variables));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderControls(v, variables)]));
  return value;
}

interface StepDefinition {
  readonly stepId: string;
  readonly type: CodeStepType;
  readonly resolve: (controls: Record<string, unknown>) => unknown;
  readonly options: { controlSchema?: Schema | undefined; skip?: ((controls: never) => unknown) | undefined; outputSchema?: Schema | undefined; fallbackTo?: unknown; ttl?: unknown; cadence?: unknown };
}

type HttpOptions = HttpStepOptions<Schema | undefined, Schema | undefined>;

/** The step object of one run: how a step call behaves, given where the run stands. */
type StepHandler = (definition: StepDefinition) => Promise<unknown>;

function stepObject(handle: StepHandler): Step {
  const make =
    (type: CodeStepType) =>
    (stepId: string, resolve: (controls: never) => unknown, options: StepDefinition['options'] = {}) =>
      handle({ stepId, type, resolve: resolve as StepDefinition['resolve'], options });
  return {
    inApp: make('in_app'),
    email: make('email'),
    sms: make('sms'),
    chat: make('chat'),
    push: make('push'),
    digest: make('digest'),
    delay: make('delay'),
    throttle: make('throttle'),
    custom: make('custom'),
    // `step.http(stepId, options)` or `step.http(stepId, resolver, options)`.
    http: (stepId: string, resolve: unknown, options?: unknown) =>
      typeof resolve === 'function'
        ? handle({ stepId, type: 'http', resolve: resolve as StepDefinition['resolve'], options: (options ?? {}) as StepDefinition['options'] })
        : handle({ stepId, type: 'http', resolve: () => ({}), options: (resolve ?? {}) as StepDefinition['options'] }),
    waitForEvent: (stepId: string, options: object) => handle({ stepId, type: 'wait', resolve: () => ({ ...options }), options: {} }),
    waitForToken: (stepId: string, options: object) => handle({ stepId, type: 'wait', resolve: () => ({ ...options, token: true }), options: {} }),
  } as unknown as Step;
}

/** What a workflow's function gets besides its step object. */
export interface RunContext {
  readonly payload: Record<string, unknown>;
  readonly subscriber: Record<string, unknown>;
  /** The trigger's contexts, each with its data (Novu's resolved form): `context.tenant.data.plan`. */
  readonly context: Record<string, { id: string; data: Record<string, unknown> }>;
  readonly env: Record<string, string>;
  /** Translates a key in the run's locale with the engine's catalogs (`t('invoice.due', { count })`). */
  readonly t: (key: string, values?: Record<string, unknown>) => string;
  /** The run's locale: the trigger's, else the subscriber's, else the engine's default. */
  readonly locale: string;
}

export type Execute = (input: RunContext & { step: Step; controls: Record<string, unknown> }) => Promise<unknown>;

/**
 * Runs the function with placeholder results and records each step it declares (resolvers do not
 * run), with a digest's cadences; throws naming the step when one's `cadence` option is refused.
 */
export async function discoverSteps(execute: Execute): Promise<CodeStepDeclaration[]> {
  const found: CodeStepDeclaration[] = [];
  const refused: string[] = [];
  const step = stepObject(async ({ stepId, type, options }) => {
    const cadence = type === 'digest' && options.cadence !== undefined ? cadenceOption(options.cadence) : undefined;
    if (cadence && !cadence.ok) refused.push(`step "${stepId}": ${cadence.error}`);
    found.push({ stepId, type, ...(cadence?.ok && { cadence: cadence.cadence }) });
    return structuredClone(PLACEHOLDERS[type]);
  });
  try {
    await execute({ step, payload: {}, subscriber: {}, context: {}, env: {}, controls: {}, t: (key) => key, locale: 'en' });
  } catch {
    // A line that reads a placeholder too deeply stops discovery there; the steps found so far stand,
    // and a step declared later fails its walk with a message saying so.
  }
  if (refused.length > 0) throw new Error(refused.join('; '));
  return found;
}

/** Evaluates the step a run reached: controls, `skip`, the resolver, and the outputs' checks. */
async function evaluate(definition: StepDefinition, variables: Record<string, unknown>): Promise<CodeStepRun> {
  const { stepId, type, options } = definition;
  const failed = (error: string): CodeStepRun => ({ kind: 'failed', stepId, error: `step "${stepId}": ${error}` });
  try {
    let controls: Record<string, unknown> = {};
    if (options.controlSchema) {
      const checked = await check(options.controlSchema, {}, 'controls');
      if (!checked.ok) return failed(describe(checked.issues));
      controls = renderControls(checked.data, variables) as Record<string, unknown>;
    }
    if (options.skip && (await options.skip(controls as never)) === true) return { kind: 'step', stepId, type, skipped: true, outputs: {} };
    const outputs = await definition.resolve(controls);
    if (type === 'http') return httpOutputs(stepId, options as HttpOptions, outputs);
    if (CHANNEL_STEPS.has(type)) {
      const issues = channelOutputIssues(type, outputs);
      if (issues.length > 0) return failed(describe(issues));
      const { fallbackTo } = options;
      if (fallbackTo !== undefined && (!CHANNEL_STEPS.has(fallbackTo as CodeStepType) || fallbackTo === type)) {
        return failed(`fallbackTo: must be another channel than "${type}" (in_app, email, sms, chat or push)`);
      }
      const ttl = options.ttl === undefined ? undefined : ttlSchema.safeParse(options.ttl);
      if (ttl && type !== 'in_app') return failed(`ttl: only in-app messages expire; a ${type} step takes no ttl`);
      if (ttl && !ttl.success) return failed('ttl: must be { amount, unit } with a positive amount and a unit from seconds to months');
      return { kind: 'step', stepId, type, skipped: false, outputs: outputs as JsonObject, ...(fallbackTo !== undefined && { fallbackTo: fallbackTo as Channel }), ...(ttl?.success && { ttl: ttl.data }) };
    }
    if (type === 'custom') {
      // Without an output schema the result is `{}`, as @novu/framework strips it.
      if (!options.outputSchema) return { kind: 'step', stepId, type, skipped: false, outputs: {} };
      const checked = await check(options.outputSchema, outputs, 'outputs');
      if (!checked.ok) return failed(describe(checked.issues));
      return { kind: 'step', stepId, type, skipped: false, outputs: JSON.parse(JSON.stringify(checked.data)) as JsonObject };
    }
    if (typeof outputs !== 'object' || outputs === null) return failed('outputs: must be an object');
    if (type === 'digest' && options.cadence !== undefined) {
      const cadence = cadenceOption(options.cadence);
      if (!cadence.ok) return failed(cadence.error);
      return { kind: 'step', stepId, type, skipped: false, outputs: outputs as JsonObject, cadence: cadence.cadence };
    }
    return { kind: 'step', stepId, type, skipped: false, outputs: outputs as JsonObject };
  } catch (error) {
    return failed(errorText(error));
  }
}

/**
 * Runs the function once: each step that already ran returns its result, the first step without one
 * is evaluated and ends the run. A function that returns has no step left.
 */
export async function runToNextStep(execute: Execute, input: CodeRunInput, base: RunContext, workflow: Record<string, unknown>): Promise<CodeStepRun> {
  const step = stepObject(async (definition) => {
    const result = input.results.get(definition.stepId);
    if (result !== undefined && definition.type === 'http') {
      const answer = await httpResult(definition.stepId, definition.options as HttpOptions, result);
      if (!answer.ok) throw new StopAtStep(answer.run);
      return structuredClone(answer.value);
    }
    // A throttle's count is also `currentCount`, the name @novu/framework's later versions give it.
    if (result !== undefined) return definition.type === 'throttle' && 'executionCount' in result ? { ...structuredClone(result), currentCount: result['executionCount'] } : structuredClone(result);
    const variables = { ...base, workflow, steps: Object.fromEntries(input.results) };
    throw new StopAtStep(await evaluate(definition, variables));
  });
  try {
    await execute({ ...base, step, controls: {} });
    return { kind: 'end' };
  } catch (error) {
    if (error instanceof StopAtStep) return error.run;
    return { kind: 'failed', stepId: null, error: `the workflow's function threw: ${errorText(error)}` };
  }
}
