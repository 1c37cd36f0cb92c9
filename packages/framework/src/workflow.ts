import type { ChannelPreferences, CodeRunInput, CodeWorkflow, JsonObject, Subscriber } from '@tidings/core';
import { discoverSteps, runToNextStep, type Execute } from './run.js';
import { check, type Schema } from './schema.js';
import { triggerOverHttp, type TriggerRequest } from './trigger.js';
import type { Awaitable, ExecuteInput, PayloadOf, WorkflowOptions } from './types.js';

const CHANNEL_NAMES = { inApp: 'in_app', email: 'email', sms: 'sms', chat: 'chat', push: 'push' } as const;

/** Novu's `preferences` as the template's channel settings: a channel (or all) `enabled: false` is off until the subscriber turns it on. */
function preferenceSettingsOf(preferences: WorkflowOptions<undefined, undefined>['preferences']): ChannelPreferences {
  const settings: ChannelPreferences = {};
  const all = preferences?.all?.enabled;
  for (const [name, channel] of Object.entries(CHANNEL_NAMES)) {
    const enabled = preferences?.channels?.[name as keyof typeof CHANNEL_NAMES]?.enabled ?? all;
    if (enabled !== undefined) settings[channel] = enabled;
  }
  return settings;
}

/** The subscriber in @novu/framework's shape. */
const frameworkSubscriber = (s: Subscriber) => ({
  subscriberId: s.subscriberId,
  firstName: s.firstName ?? null,
  lastName: s.lastName ?? null,
  email: s.email ?? null,
  phone: s.phone ?? null,
  avatar: s.avatar ?? null,
  locale: s.locale ?? null,
  data: s.data ?? null,
});

/** A workflow written in code: what `createTidings({ workflows })` runs, and a `trigger` as @novu/framework's. */
export interface Workflow<P = Record<string, unknown>> extends CodeWorkflow {
  /** Sends the event to a Tidings (or Novu) server: `POST {NOVU_API_URL}/v1/events/trigger` with `NOVU_SECRET_KEY`. */
  trigger(event: TriggerRequest<P>): Promise<{ acknowledged: boolean; status: string; transactionId?: string }>;
}

/**
 * A workflow written as a function, with @novu/framework's call shapes: `execute` declares steps with
 * `step.inApp`, `step.email`, `step.digest`, `step.delay`, `step.custom`, … and the engine replays it
 * for each step, every step that already ran returning its stored result. The function must declare
 * the same steps in the same order on every run: leave one out with its `skip` option, never with an `if`.
 */
export function workflow<P extends Schema | undefined = undefined, C extends Schema | undefined = undefined>(
  id: string,
  execute: (input: ExecuteInput<PayloadOf<P>, PayloadOf<C>>) => Awaitable<unknown>,
  options: WorkflowOptions<P, C> = {},
): Workflow<PayloadOf<P>> {
  if (typeof id !== 'string' || id.trim() === '') throw new TypeError('workflow(id, …): id must be a non-empty string');
  if (typeof execute !== 'function') throw new TypeError(`workflow("${id}", execute): execute must be a function`);
  const run = execute as unknown as Execute;
  const info = { workflowId: id, name: options.name ?? id, description: options.description ?? '', tags: options.tags ?? [], severity: options.severity ?? 'none' };
  let discovered: ReturnType<typeof discoverSteps> | undefined;
  return {
    kind: 'tidings.code-workflow',
    id,
    name: options.name,
    description: options.description,
    tags: options.tags,
    severity: options.severity,
    critical: options.critical === true || options.preferences?.all?.readOnly === true,
    preferenceSettings: preferenceSettingsOf(options.preferences),
    discover: () => (discovered ??= discoverSteps(run)),
    async preparePayload(payload) {
      // Without a payload schema the payload is `{}`, as @novu/framework strips it.
      if (!options.payloadSchema) return { ok: true, payload: {} };
      const checked = await check(options.payloadSchema, payload, 'payload');
      return checked.ok ? { ok: true, payload: checked.data as JsonObject } : { ok: false, errors: checked.issues.map((i) => `${i.path}: ${i.message}`) };
    },
    runNext(input: CodeRunInput) {
      const base = { payload: input.payload, subscriber: frameworkSubscriber(input.subscriber), context: { ...input.context }, env: {} };
      return runToNextStep(run, input, base, info);
    },
    trigger: (event) => triggerOverHttp(id, event),
  };
}
