import type { DebounceInput } from '@tidings/core/schemas';
import type { Schema, SchemaOutput } from './schema.js';
import type { HttpStepFn } from './http-step.js';

export type Awaitable<T> = T | Promise<T>;
export type TimeUnit = 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks' | 'months';
export type RedirectTarget = '_self' | '_blank' | '_parent' | '_top' | '_unfencedTop';

export interface Redirect {
  url: string;
  target?: RedirectTarget;
}
export interface Action {
  label: string;
  redirect?: Redirect;
}

/** What an in-app step's resolver returns (Novu's shape). */
export interface InAppOutput {
  subject?: string;
  body?: string;
  avatar?: string;
  primaryAction?: Action;
  secondaryAction?: Action;
  data?: Record<string, unknown>;
  redirect?: Redirect;
  /** Any other member is kept in the message's `data`, beside `data`'s own members (which win a clash). Novu's validation removes it. */
  [member: string]: unknown;
}
export interface EmailOutput {
  subject: string;
  body: string;
}
export interface SmsOutput {
  body: string;
}
export interface ChatOutput {
  body: string;
}
export interface PushOutput {
  subject: string;
  body: string;
  /**
   * Any other member (`badge`, `sound`, `data`, …) is kept, as returned, in the push step's content
   * `data` (Novu's validation removes it). See "Extra members of step outputs" in docs/workflows-in-code.md
   * for how far it reaches today.
   */
  [member: string]: unknown;
}
export type DelayOutput = { type?: 'regular'; amount: number; unit: TimeUnit } | { type: 'timed'; cron: string } | { type: 'dynamic'; dynamicKey: string };
export type DigestOutput =
  | { type?: 'regular'; amount: number; unit: TimeUnit; digestKey?: string; lookBackWindow?: { amount: number; unit: TimeUnit } }
  | { type?: 'timed'; cron: string; digestKey?: string }
  /** Tidings only, with the step's `cadence` option: the subscriber chooses the window; the outputs give only the key. */
  | { type: 'preference'; digestKey?: string };
/**
 * At most `threshold` runs (1 when left out) per subscriber in any window of `amount` `unit`s, counted
 * apart per `throttleKey`; `type: 'dynamic'` reads the window `{ amount, unit }` from the payload path
 * `dynamicKey`. Also @novu/framework's later shape: `{ amount, timeValue, timeUnit }`, `amount` being
 * the limit. A run past the limit ends the workflow for the subscriber at this step.
 */
export type ThrottleOutput =
  | { type: 'fixed' | 'dynamic'; amount?: number; unit?: 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks'; dynamicKey?: string; threshold?: number; throttleKey?: string }
  | { amount: number; timeValue: number; timeUnit: 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks'; throttleKey?: string };

/** What an in-app step returns to the steps after it: its message's flags as they are when they run. */
export interface InAppResult {
  seen: boolean;
  read: boolean;
  lastSeenDate: string | null;
  lastReadDate: string | null;
}
export interface DigestResult {
  events: { id: string; time: string; payload: Record<string, unknown> }[];
}
export interface DelayResult {
  duration: number;
}
/** A run that reaches the steps after a throttle went through it: `throttled` is false there. */
export interface ThrottleResult {
  throttled: boolean;
  /** This run's place in the window (1 for the first). */
  executionCount: number;
  /** The same count, by the name of @novu/framework's later versions. */
  currentCount: number;
  threshold: number;
  windowStart: string;
}
export type EmptyResult = Record<string, never>;

/** Options every step takes. `skip` gets the step's controls; true leaves the step out. */
export interface StepOptions<C extends Schema | undefined = undefined> {
  controlSchema?: C;
  skip?: (controls: ControlsOf<C>) => Awaitable<boolean>;
  /** Per-provider output overrides (accepted for compatibility; Tidings' providers take the step's outputs). */
  providers?: Record<string, (args: { controls: ControlsOf<C>; outputs: Record<string, unknown> }) => Awaitable<Record<string, unknown>>>;
  disableOutputSanitization?: boolean;
  /**
   * Tidings only, channel steps: when the step has nowhere to go (no integration, no address) or
   * every integration failed for good, the same message goes out through this channel.
   */
  fallbackTo?: 'in_app' | 'email' | 'sms' | 'chat' | 'push';
}
export interface CustomStepOptions<C extends Schema | undefined, O extends Schema | undefined> extends Omit<StepOptions<C>, 'providers' | 'disableOutputSanitization'> {
  /** The custom step's result is checked against it; without one the result is `{}`, as in @novu/framework. */
  outputSchema?: O;
}

export type ControlsOf<C> = C extends Schema ? SchemaOutput<C> : Record<string, never>;

type StepFn<Out, Result> = <C extends Schema | undefined = undefined>(stepId: string, resolver: (controls: ControlsOf<C>) => Awaitable<Out>, options?: StepOptions<C>) => Promise<Result>;

/** `step.inApp`'s options. */
export interface InAppStepOptions<C extends Schema | undefined = undefined> extends StepOptions<C> {
  /** Tidings only: the message expires this long after it is made (out of the feed and counts, then deleted). */
  ttl?: { amount: number; unit: 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks' | 'months' };
}
/** A cadence a digest offers its subscribers (Tidings only), on the subscriber's wall clock. */
export type DigestCadenceChoice = { id: string; label?: string } & (
  | { cadence: 'instant' }
  | { cadence: 'hourly' }
  | { cadence: 'daily'; atTime: string }
  | { cadence: 'weekly'; weekDay: 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday'; atTime: string }
);

/** `step.digest`'s options. */
export interface DigestStepOptions<C extends Schema | undefined = undefined> extends StepOptions<C> {
  /**
   * Tidings only: each subscriber chooses the digest's window among these cadences
   * (`preferences.update(id, { workflowId, digest: 'daily' })`), `default` for those who chose none.
   * The resolver then returns `{ type: 'preference', digestKey? }`.
   */
  cadence?: { choices: DigestCadenceChoice[]; default: string };
}
type DigestStepFn = <C extends Schema | undefined = undefined>(stepId: string, resolver: (controls: ControlsOf<C>) => Awaitable<DigestOutput>, options?: DigestStepOptions<C>) => Promise<DigestResult>;
type InAppStepFn = <C extends Schema | undefined = undefined>(stepId: string, resolver: (controls: ControlsOf<C>) => Awaitable<InAppOutput>, options?: InAppStepOptions<C>) => Promise<InAppResult>;

/** The steps a workflow's function declares, with @novu/framework's call shapes. */
export interface Step {
  inApp: InAppStepFn;
  email: StepFn<EmailOutput, EmptyResult>;
  sms: StepFn<SmsOutput, EmptyResult>;
  chat: StepFn<ChatOutput, EmptyResult>;
  push: StepFn<PushOutput, EmptyResult>;
  digest: DigestStepFn;
  delay: StepFn<DelayOutput, DelayResult>;
  throttle: StepFn<ThrottleOutput, ThrottleResult>;
  custom: <C extends Schema | undefined = undefined, O extends Schema | undefined = undefined>(
    stepId: string,
    resolver: (controls: ControlsOf<C>) => Awaitable<O extends Schema ? SchemaOutput<O> : Record<string, unknown>>,
    options?: CustomStepOptions<C, O>,
  ) => Promise<O extends Schema ? SchemaOutput<O> : Record<string, never>>;
  /** Tidings only: an HTTP request, sent by the walk job outside any transaction; resolves to the answer's fields. */
  http: HttpStepFn;
  /** Tidings only: the run waits for a matching event, or until `timeout`; see docs/waits.md. */
  waitForEvent: (stepId: string, options: WaitForEventOptions) => Promise<WaitForEventResult>;
  /** Tidings only: the run waits until its token is completed (`tidings.tokens.complete`, or a POST to its URL), or until `timeout`. */
  waitForToken: (stepId: string, options: WaitForTokenOptions) => Promise<WaitForTokenResult>;
}

/** A length of time: `'30s'`, `'15m'`, `'1h'`, `'2d'`, `'1w'`, or `{ amount, unit }`. */
export type WaitDuration = string | { amount: number; unit: 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks' };

/** A filter over the event and the run: `{ on: 'event', field: 'data.orderId', operator: 'EQUAL', value: '{{ payload.orderId }}' }`. */
export interface WaitFilter {
  value: 'AND' | 'OR';
  isNegated?: boolean;
  children: { on: 'event' | 'payload' | 'subscriber' | 'tenant' | 'actor' | 'context'; field: string; operator: string; value: string | number | boolean }[];
}

/** `step.waitForEvent`'s options (Tidings only). */
export interface WaitForEventOptions {
  /** The event's name: a signal of the app (`tidings.signal`), or the engine's `message.seen`, `message.read`, `message.action`, `message.delivered`, `message.clicked` for this run's messages. */
  event: string;
  /** `'data.orderId'`: the event's `data.orderId` equals the payload's `orderId`; or filters over `event`, `payload`, `subscriber`. */
  match?: string | WaitFilter[];
  timeout: WaitDuration;
  /** `halt` ends the subscriber's run when no event came in time. @default 'continue' */
  onTimeout?: 'continue' | 'halt';
  /** `halt` ends the subscriber's run when the event came. @default 'continue' */
  onEvent?: 'continue' | 'halt';
  /** A matching signal sent at most this long before the wait began counts too. */
  lookBack?: WaitDuration;
}
export type WaitForEventResult = { matched: true; event: { name: string; data: Record<string, unknown>; at: string } } | { matched: false };

/** `step.waitForToken`'s options (Tidings only). */
export interface WaitForTokenOptions {
  timeout: WaitDuration;
  /** @default 'continue' */
  onTimeout?: 'continue' | 'halt';
}
/** The token's `id` and `url` are also at the top (`steps.<id>.url`). */
export type WaitForTokenResult = ({ matched: true; output: Record<string, unknown> } | { matched: false }) & { token: { id: string; url: string }; id: string; url: string };

/** The subscriber a run is for, in @novu/framework's shape. */
export interface FrameworkSubscriber {
  subscriberId: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  phone?: string | null;
  avatar?: string | null;
  locale?: string | null;
  data?: Record<string, unknown> | null;
}

export interface ExecuteInput<P, C> {
  step: Step;
  payload: P;
  subscriber: FrameworkSubscriber;
  /** The trigger's contexts, each with its data (Novu's resolved form). */
  context: Record<string, { id: string; data: Record<string, unknown> }>;
  env: Record<string, string>;
  controls: C;
  /** Translates a key in the run's locale with the engine's catalogs, as templates' `t` filter (Tidings' own, not in @novu/framework). */
  t: (key: string, values?: Record<string, unknown>) => string;
  /** The run's locale: the trigger's, else the subscriber's, else the engine's `defaultLocale`. */
  locale: string;
}

export interface ChannelPreference {
  enabled?: boolean;
  readOnly?: boolean;
}

/** Options of `workflow()`, as @novu/framework takes them. */
export interface WorkflowOptions<P extends Schema | undefined, C extends Schema | undefined> {
  /**
   * Tidings only: the function may branch with a plain `if` on earlier steps' results (`step.http`'s
   * answer, an in-app message's `read`): a step the discovery run did not reach runs too, placed after
   * the declared steps. Replays return stored results, so an `if` on them takes the same side every
   * time. Without it such a step fails the walk, as in @novu/framework (leave steps out with `skip`). @default false
   */
  dynamicSteps?: boolean;
  payloadSchema?: P;
  controlSchema?: C;
  name?: string;
  description?: string;
  tags?: string[];
  severity?: 'none' | 'low' | 'medium' | 'high';
  /** Delivers past the subscriber's opt-outs. */
  critical?: boolean;
  /**
   * Folds a burst of triggers (to the same recipients, with the same rendered `key`) into one run with
   * the last one's payload, once `period` passed without another, and no later than `maxWait`.
   */
  debounce?: DebounceInput;
  /** Tidings only: a matching signal cancels the subscriber's pending run (delays, digests, waits); see docs/waits.md. */
  cancelOn?: { event: string; match?: string | WaitFilter[] }[];
  preferences?: {
    all?: ChannelPreference;
    channels?: Partial<Record<'inApp' | 'email' | 'sms' | 'chat' | 'push', ChannelPreference>>;
  };
}

export type PayloadOf<P> = P extends Schema ? SchemaOutput<P> : Record<string, never>;
