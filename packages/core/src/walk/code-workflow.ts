import type { CadenceOffer, Channel, ChannelPreferences, JsonObject, Severity, Subscriber, Ttl } from '../schemas/index.js';
import type { ResolvedContext } from '../schemas/context.js';
import type { Debounce } from '../schemas/debounce.js';
import type { CancelOn } from '../schemas/wait.js';
import type { PreparedPayload } from './walker.js';

/** The kinds of step a workflow written in code may declare. */
export type CodeStepType = Channel | 'digest' | 'delay' | 'custom' | 'throttle' | 'http' | 'wait';

/** A step as the workflow declares it, found by running the function once without an event. */
export interface CodeStepDeclaration {
  readonly stepId: string;
  readonly type: CodeStepType;
  /** A digest's cadences the subscriber chooses from (its `cadence` option), known before any run. */
  readonly cadence?: CadenceOffer;
}

/** What the engine gives a code workflow's function for one run up to its next step. */
export interface CodeRunInput {
  readonly payload: JsonObject;
  readonly subscriber: Subscriber;
  /** The trigger's contexts, each with its data: `{ tenant: { id: 'acme', data: { … } } }`. */
  readonly context: Readonly<ResolvedContext>;
  readonly environmentId: string;
  /** The results of the steps that already ran, by step id: each returns its result instead of running again. */
  readonly results: ReadonlyMap<string, JsonObject>;
  /** Translates a key in the run's locale, as a template's `t` filter (throws for a key found in no catalog). */
  readonly t?: (key: string, values?: Record<string, unknown>) => string;
  /** The run's locale. */
  readonly locale?: string;
}

/** Where a run of the function stopped. */
export type CodeStepRun =
  /** The function returned: every step ran. */
  | { readonly kind: 'end' }
  /** The first step without a result, evaluated: `skip` said to leave it out, or its outputs (resolver run, schema checked). */
  | { readonly kind: 'step'; readonly stepId: string; readonly type: CodeStepType; readonly skipped: boolean; readonly outputs: JsonObject; readonly fallbackTo?: Channel; readonly ttl?: Ttl; readonly cadence?: CadenceOffer }
  /** The function or a step failed (thrown, outputs refused by a schema): the walk ends here. */
  | { readonly kind: 'failed'; readonly stepId: string | null; readonly error: string };

/**
 * A workflow written as a function, as the engine runs it: replayed for each step, every step that
 * already ran returning its stored result. `@tidings/framework` makes these from its own `workflow()`
 * and from `@novu/framework`'s; the engine knows nothing else about them.
 */
export interface CodeWorkflow {
  /** Marks the object, so `createTidings` tells code workflows apart. */
  readonly kind: 'tidings.code-workflow';
  /** The workflow's id: what a trigger names. */
  readonly id: string;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly severity?: Severity | undefined;
  /** Delivers past the subscriber's opt-outs (Novu's `critical`, or `preferences.all.readOnly`). */
  readonly critical?: boolean | undefined;
  /** Folds a burst of triggers into one run with the last one's event (a trigger's own `debounce` wins). */
  readonly debounce?: Debounce | undefined;
  /**
   * Steps the discovery run did not reach (behind an `if` on an earlier step's result) run too,
   * placed after the declared ones in the order a run reaches them; without it such a step fails the walk.
   */
  readonly dynamicSteps?: boolean | undefined;
  /** The channels on or off until a subscriber says otherwise (Novu's `preferences`). */
  readonly preferenceSettings?: ChannelPreferences | undefined;
  /** Signals that cancel a subscriber's pending run (checked: `cancelOnSchema`). */
  readonly cancelOn?: CancelOn | undefined;
  /**
   * Every step, in the order the function declares them: found once by running the function without
   * an event (steps return placeholder results, resolvers do not run).
   */
  discover(): Promise<readonly CodeStepDeclaration[]>;
  /** Checks a trigger's payload against the workflow's payload schema, defaults applied. */
  preparePayload(payload: JsonObject): Promise<PreparedPayload>;
  /**
   * Runs the function with the results of the steps that already ran, up to the first step without one.
   * For a workflow of in-app steps alone it may run just before a trigger's transaction, with the
   * subscriber as that transaction will write it: its `_id`, `createdAt` and `updatedAt` are then not
   * yet the stored ones.
   */
  runNext(input: CodeRunInput): Promise<CodeStepRun>;
}

export const isCodeWorkflow = (value: unknown): value is CodeWorkflow =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tidings.code-workflow';
