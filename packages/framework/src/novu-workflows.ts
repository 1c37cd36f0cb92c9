import type { Client, Workflow as FrameworkWorkflow } from '@novu/framework';
import type { CodeWorkflow, JsonObject, Severity } from '@tidings/core';
import type { CodeRunInput, CodeStepDeclaration, CodeStepRun, CodeStepType } from '@tidings/core/internal';
import { channelSettingsOf, checkedPayload, frameworkSubscriber } from './novu-shapes.js';
import type { Schema } from './schema.js';

/**
 * A workflow made by `@novu/framework`'s `workflow()`, as far as `novuWorkflows()` names it (so the
 * published types do not need @novu/framework installed: it is an optional peer).
 */
export interface NovuWorkflow {
  readonly id: string;
  discover(): Promise<unknown>;
}

/** What `@novu/framework`'s `workflow(…).discover()` gives: the definition its `Client` runs. */
type Definition = Awaited<ReturnType<FrameworkWorkflow['discover']>>;
/** One call of `Client.executeWorkflow`. */
type NovuEvent = Parameters<Client['executeWorkflow']>[0];
type NovuExecuteInput = Parameters<Definition['execute']>[0];
type NovuModule = typeof import('@novu/framework');

const STEP_TYPES: ReadonlySet<string> = new Set<CodeStepType>(['in_app', 'email', 'sms', 'chat', 'push', 'digest', 'delay', 'custom', 'throttle']);
const SEVERITIES: ReadonlySet<string> = new Set<Severity>(['high', 'medium', 'low', 'none']);
/** The step id a run aims at once every step has a result: none is declared with it, so every step is hydrated. */
const NO_STEP = '\u0000tidings:end';

/**
 * The result a step that ran must at least have for @novu/framework to accept it as state: its result
 * schemas require these members (the engine stores `{}` for a skipped digest, delay or throttle).
 */
const RESULT_FLOOR: Partial<Record<CodeStepType, JsonObject>> = {
  in_app: { seen: false, read: false, lastSeenDate: null, lastReadDate: null },
  digest: { events: [] },
  delay: { duration: 0 },
  throttle: { throttled: false },
};

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let novuModule: Promise<NovuModule> | undefined;
/** @novu/framework, loaded on first use: it is an optional peer, and costs ~¼ s to import. */
function loadNovu(): Promise<NovuModule> {
  novuModule ??= import('@novu/framework').catch((error: unknown) => {
    novuModule = undefined;
    throw new Error(`novuWorkflows(): @novu/framework (>=2.13.0 <2.14.0) could not be loaded: ${errorText(error)}`, { cause: error });
  });
  return novuModule;
}


/** Why @novu/framework refused: its message, the fields its validation named, and the cause of a failed step. */
function describeNovuError(error: unknown): string {
  const text = errorText(error);
  const { code, data, cause } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; data?: unknown; cause?: unknown };
  const where = typeof code === 'string' ? (/Output/.test(code) ? 'outputs' : /Control/.test(code) ? 'controls' : /Result/.test(code) ? 'results' : /Payload/.test(code) ? 'payload' : '') : '';
  const issues = Array.isArray(data)
    ? data
        .filter((i): i is { path?: unknown; message?: unknown } => typeof i === 'object' && i !== null)
        .map((i) => `${[where, ...String(i.path ?? '').split('/')].filter((p) => p !== '').join('.') || where}: ${String(i.message)}`)
    : [];
  const causeText = cause === undefined ? '' : `: ${errorText(cause)}`;
  return issues.length > 0 ? `${text} (${issues.join('; ')})` : `${text}${causeText}`;
}

const asJson = (value: unknown): JsonObject => (value === undefined ? {} : (JSON.parse(JSON.stringify(value)) as JsonObject));

/** Which step a run of the function declared first among those without a result. */
interface Tracker {
  readonly results: ReadonlyMap<string, JsonObject>;
  first: string | undefined;
}

/** The step object of one execution, noting each step the function declares before @novu/framework handles it. */
function watchSteps(step: NovuExecuteInput['step'], tracker: Tracker): NovuExecuteInput['step'] {
  const watched: Record<string, unknown> = {};
  for (const [name, declare] of Object.entries(step)) {
    watched[name] =
      typeof declare === 'function'
        ? (stepId: unknown, ...rest: unknown[]) => {
            if (tracker.first === undefined && typeof stepId === 'string' && !tracker.results.has(stepId)) tracker.first = stepId;
            return (declare as (...args: unknown[]) => unknown)(stepId, ...rest);
          }
        : declare;
  }
  return watched as NovuExecuteInput['step'];
}

interface Discovered {
  readonly client: Client;
  readonly definition: Definition;
  readonly steps: readonly CodeStepDeclaration[];
}

function adapt(source: FrameworkWorkflow): CodeWorkflow {
  const id = source.id;
  // Each execution's tracker, found by the `env` object @novu/framework hands to the function unchanged.
  const trackers = new WeakMap<object, Tracker>();
  let discovered: Promise<Discovered> | undefined;
  let definition: Definition | undefined;

  async function discover(): Promise<Discovered> {
    const { Client } = await loadNovu();
    // Nothing printed (`verbose: false`, a silent logger) and no HMAC: executions are calls in this process, never a bridge request.
    const client = new Client({ strictAuthentication: false, verbose: false, logger: silent });
    // The same workflow, its function run with a step object that notes which step each run reaches.
    const watched: FrameworkWorkflow = {
      id,
      trigger: source.trigger,
      async discover() {
        const found = await source.discover();
        const execute: Definition['execute'] = (input) => {
          const tracker = trackers.get(input.env);
          if (!tracker) throw new Error('novuWorkflows(): @novu/framework did not hand the execution its own `env`: this version is not supported (use 2.13.x)');
          return found.execute({ ...input, step: watchSteps(input.step, tracker) });
        };
        return { ...found, execute };
      },
    };
    await client.addWorkflows([watched]);
    const found = client.discover().workflows.find((w) => w.workflowId === id);
    if (!found) throw new Error(`novuWorkflows(): workflow "${id}" was not discovered`);
    const steps = found.steps.map(({ stepId, type }): CodeStepDeclaration => {
      if (!STEP_TYPES.has(type)) throw new Error(`step "${stepId}" is a "${type}" step, which Tidings does not run (it runs ${[...STEP_TYPES].join(', ')})`);
      return { stepId, type: type as CodeStepType };
    });
    definition = found;
    return { client, definition: found, steps };
  }
  const ready = () => {
    if (!discovered) {
      const attempt = discover();
      // A failed discovery is tried again on the next call.
      attempt.catch(() => {
        if (discovered === attempt) discovered = undefined;
      });
      discovered = attempt;
    }
    return discovered;
  };

  /** The steps that ran, as @novu/framework's execution state. */
  const stateOf = (steps: readonly CodeStepDeclaration[], results: ReadonlyMap<string, JsonObject>): NovuEvent['state'] =>
    steps.flatMap(({ stepId, type }) => {
      const result = results.get(stepId);
      return result === undefined ? [] : [{ stepId, outputs: { ...RESULT_FLOOR[type], ...result }, state: { status: 'completed' } }];
    });

  async function runNext(input: CodeRunInput): Promise<CodeStepRun> {
    const { client, steps } = await ready();
    const state = stateOf(steps, input.results);
    // Each run aims at the first declared step without a result; with none left it aims at no step, so
    // the function still runs to its end (a throw, or a step discovery never saw, shows there).
    let target = steps.find((s) => !input.results.has(s.stepId));
    for (let attempt = 0; attempt <= steps.length; attempt++) {
      const tracker: Tracker = { results: input.results, first: undefined };
      const env = {};
      trackers.set(env, tracker);
      const event: NovuEvent = {
        workflowId: id,
        stepId: target?.stepId ?? NO_STEP,
        action: 'execute' as NovuEvent['action'],
        payload: { ...input.payload },
        subscriber: frameworkSubscriber(input.subscriber),
        controls: {},
        state,
        context: { ...input.context } as NovuEvent['context'],
        env: env as NovuEvent['env'],
      };
      let failure: { error: unknown } | undefined;
      try {
        const out = await client.executeWorkflow(event);
        if (target && tracker.first === target.stepId) return { kind: 'step', stepId: target.stepId, type: target.type, skipped: out.options.skip, outputs: asJson(out.outputs) };
      } catch (error) {
        failure = { error };
      }
      const first = tracker.first;
      if (first === undefined) {
        if (!failure) return { kind: 'end' };
        // @novu/framework's own refusals (a step's stored result it rejects, …) carry an `…Error` code; anything else came from the function.
        const own = typeof (failure.error as { code?: unknown } | null)?.code === 'string' && /Error$/.test(String((failure.error as { code: unknown }).code));
        return { kind: 'failed', stepId: null, error: own ? describeNovuError(failure.error) : `the workflow's function threw: ${describeNovuError(failure.error)}` };
      }
      if (first === target?.stepId) return { kind: 'failed', stepId: first, error: `step "${first}": ${describeNovuError(failure?.error)}` };
      // The function declared another step without a result first (the target was left out with an `if`): aim at that one.
      target = steps.find((s) => s.stepId === first);
      if (!target) return { kind: 'failed', stepId: first, error: `step "${first}" is not a step the workflow declared: declare every step on every run, and leave one out with \`skip\`` };
    }
    return { kind: 'failed', stepId: null, error: 'the workflow declared a different first step on every run' };
  }

  return {
    kind: 'tidings.code-workflow',
    id,
    // Known once discovered: a Novu workflow keeps its options inside `discover()`. The engine reads them after discovering.
    get name() {
      return definition?.name;
    },
    get description() {
      return definition?.description;
    },
    get tags() {
      return definition?.tags;
    },
    get severity() {
      const severity: string | undefined = definition?.severity;
      return severity !== undefined && SEVERITIES.has(severity) ? (severity as Severity) : undefined;
    },
    get critical() {
      return definition ? definition.preferences.all?.readOnly === true : undefined;
    },
    get preferenceSettings() {
      return definition ? channelSettingsOf(definition.preferences, (channel) => channel) : undefined;
    },
    discover: async () => (await ready()).steps,
    async preparePayload(payload) {
      // The workflow's own schema (zod or JSON Schema), checked as @novu/framework checks it: defaults
      // applied, members the schema does not name dropped (all of them without a schema).
      const { definition: found } = await ready();
      return checkedPayload(found.payload.unknownSchema as Schema, payload);
    },
    runNext,
  };
}

/**
 * Workflows made with `@novu/framework`'s own `workflow()` (2.13.x), as the engine runs code workflows:
 * each is discovered and executed by that package's `Client`, in process (no bridge, no network, no
 * logs), every step that already ran given back to it as execution state.
 *
 * ```ts
 * import { workflow } from '@novu/framework';
 * const tidings = createTidings({ storage, workflows: novuWorkflows([welcome, digest]) });
 * ```
 *
 * Steps of other kinds (`tool`, `http_request`) are refused at discovery, naming the step. The
 * workflow's `name`, `description`, `tags`, `severity` and `preferences` are read from its
 * definition, so they are known once `discover()` resolved; `preferences.all.readOnly` makes it critical.
 */
export function novuWorkflows(workflows: readonly NovuWorkflow[]): CodeWorkflow[] {
  return workflows.map((source, i) => {
    if (typeof source !== 'object' || source === null || typeof source.id !== 'string' || typeof source.discover !== 'function') {
      throw new TypeError(`novuWorkflows(workflows): workflows[${i}] is not a workflow made by @novu/framework's workflow()`);
    }
    return adapt(source as FrameworkWorkflow);
  });
}
