import type { CodeWorkflow } from '@tidings/core';
import type { CodeRunInput } from '@tidings/core/internal';
import { cancelOnSchema, debounceSchema, type Debounce, type DebounceInput } from '@tidings/core/schemas';
import { channelSettingsOf, checkedPayload, frameworkSubscriber } from './novu-shapes.js';
import { discoverSteps, runToNextStep, type Execute } from './run.js';
import type { Schema } from './schema.js';
import { triggerOverHttp, type TriggerRequest, type TriggerResult } from './trigger.js';
import type { Awaitable, ExecuteInput, PayloadOf, WorkflowOptions } from './types.js';

/** A workflow's `debounce` option, checked when the workflow is made: a mistake is named at once. */
function checkedDebounce(id: string, debounce: DebounceInput | undefined): Debounce | undefined {
  if (debounce === undefined) return undefined;
  const parsed = debounceSchema.safeParse(debounce);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TypeError(`workflow("${id}", …, { debounce }): debounce.${issue.path.join('.')} ${issue.message}`);
}

/** Without the engine's translations (a run outside an engine), every key is refused by name. */
const untranslated = (key: string): string => {
  throw new Error(`the translation "${key}" is missing: no translation catalogs are given`);
};

const PREFERENCE_KEYS = { in_app: 'inApp', email: 'email', sms: 'sms', chat: 'chat', push: 'push' } as const;

/** A workflow written in code: what `createTidings({ workflows })` runs, and a `trigger` as @novu/framework's. */
export interface Workflow<P = Record<string, unknown>> extends CodeWorkflow {
  /** Sends the event to a Tidings (or Novu) server: `POST {NOVU_API_URL}/v1/events/trigger` with `NOVU_SECRET_KEY`. */
  trigger(event: TriggerRequest<P>): Promise<TriggerResult>;
}

/**
 * A workflow written as a function, with @novu/framework's call shapes: `execute` declares steps with
 * `step.inApp`, `step.email`, `step.digest`, `step.delay`, `step.custom`, … and the engine replays it
 * for each step, every step that already ran returning its stored result. The function must declare
 * the same steps in the same order on every run: leave one out with its `skip` option, never with an
 * `if`, unless the workflow says `dynamicSteps: true` (an `if` on earlier steps' results).
 */
export function workflow<P extends Schema | undefined = undefined, C extends Schema | undefined = undefined>(
  id: string,
  execute: (input: ExecuteInput<PayloadOf<P>, PayloadOf<C>>) => Awaitable<unknown>,
  options: WorkflowOptions<P, C> = {},
): Workflow<PayloadOf<P>> {
  if (typeof id !== 'string' || id.trim() === '') throw new TypeError('workflow(id, …): id must be a non-empty string');
  if (typeof execute !== 'function') throw new TypeError(`workflow("${id}", execute): execute must be a function`);
  const run = execute as unknown as Execute;
  const cancelOn = options.cancelOn === undefined ? undefined : cancelOnSchema.safeParse(options.cancelOn);
  if (cancelOn && !cancelOn.success) throw new TypeError(`workflow("${id}", …, { cancelOn }): ${cancelOn.error.issues.map((i) => `cancelOn.${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const info = { workflowId: id, name: options.name ?? id, description: options.description ?? '', tags: options.tags ?? [], severity: options.severity ?? 'none' };
  let discovered: ReturnType<typeof discoverSteps> | undefined;
  return {
    kind: 'tidings.code-workflow',
    id,
    name: options.name,
    description: options.description,
    tags: options.tags,
    severity: options.severity,
    dynamicSteps: options.dynamicSteps === true,
    critical: options.critical === true || options.preferences?.all?.readOnly === true,
    debounce: checkedDebounce(id, options.debounce),
    ...(cancelOn?.success && { cancelOn: cancelOn.data }),
    preferenceSettings: channelSettingsOf(options.preferences, (channel) => PREFERENCE_KEYS[channel]),
    discover: () => (discovered ??= discoverSteps(run)),
    async preparePayload(payload) {
      // Without a payload schema the payload is `{}`, as @novu/framework strips it.
      return options.payloadSchema ? checkedPayload(options.payloadSchema, payload) : { ok: true, payload: {} };
    },
    runNext(input: CodeRunInput) {
      const base = { payload: input.payload, subscriber: frameworkSubscriber(input.subscriber), context: { ...input.context }, env: {}, t: input.t ?? untranslated, locale: input.locale ?? 'en' };
      return runToNextStep(run, input, base, info);
    },
    trigger: (event) => triggerOverHttp(id, event, options.payloadSchema),
  };
}
