import { explainFilters, firstFailure, type FilterContext, type PartTrace } from '../filters/evaluate.js';
import { channelPermitted } from '../preferences/resolve-preferences.js';
import type { Channel, DelayMetadata, Notification, PreferenceRow, Step, StepVariant, Subscriber, Tenant, Workflow } from '../schemas/index.js';
import { isWithinSchedule, nextScheduleOpening } from '../schedule/weekly-schedule.js';
import { renderStep, type RenderedContent } from '../templates/render-step.js';
import type { RenderBudget } from '../templates/render.js';
import { delayDueAt, type DelayOverride } from '../timing/delay-due-at.js';
import { CHANNELS, timeUnitSchema } from '../schemas/enums.js';

/** Why a step did what it did, for "why did / didn't this subscriber get this message". */
export interface TraceEntry {
  readonly stepIndex: number;
  readonly stepId: string;
  readonly type: Step['template']['type'];
  readonly decision: 'delivered' | 'skipped' | 'delayed' | 'held' | 'failed';
  readonly reason: string;
  readonly variantIndex?: number;
  readonly failedFilter?: PartTrace;
  /** The integration that delivered (or would have delivered) a channel step. */
  readonly integration?: string;
}

/** A channel step that passed every check, rendered and ready to become a message. */
export interface Delivery {
  readonly stepIndex: number;
  readonly step: StepVariant;
  readonly channel: Channel;
  readonly rendered: RenderedContent;
}

export interface WalkInput {
  readonly workflow: Workflow;
  readonly notification: Notification;
  readonly subscriber: Subscriber;
  readonly actor: Subscriber | null;
  readonly tenant: Tenant | null;
  readonly startIndex: number;
  readonly now: Date;
  /** The subscriber's stored preference rows (global and per workflow). */
  readonly preferences: readonly PreferenceRow[];
  /** Email, sms, chat and push steps outside the subscriber's schedule wait for it or are dropped. */
  readonly outsideSchedule: 'defer' | 'skip';
  /** The payloads of the digest this walk continues after (`step.events` in templates), oldest first. */
  readonly digestEvents?: readonly Record<string, unknown>[];
  /** The render budget of the call this walk belongs to (a trigger call, a batch of jobs). */
  readonly renderBudget?: RenderBudget;
}

export interface WalkResult {
  readonly deliveries: Delivery[];
  /** Where the walk continues later (after a delay), or null when it is over. */
  readonly resume: { stepIndex: number; runAt: Date } | null;
  /** The walk stopped at this digest step: the engine joins or opens the digest. */
  readonly digest?: { stepIndex: number; step: StepVariant };
  readonly trace: TraceEntry[];
}

const isChannel = (type: string): type is Channel => (CHANNELS as readonly string[]).includes(type);

/** The trigger's `overrides.delay = { amount, unit }`, when well-formed. */
export function delayOverride(overrides: Record<string, unknown>): DelayOverride | null {
  const delay = overrides['delay'];
  if (typeof delay !== 'object' || delay === null) return null;
  const { amount, unit } = delay as Record<string, unknown>;
  const parsedUnit = timeUnitSchema.safeParse(unit);
  return typeof amount === 'number' && amount >= 0 && parsedUnit.success ? { amount, unit: parsedUnit.data } : null;
}

/** The data templates and filters see for this walk. */
export function walkVariables(input: WalkInput): Record<string, unknown> & FilterContext {
  const { subscriber, notification, actor, tenant } = input;
  return {
    subscriber: { ...subscriber, data: subscriber.data ?? {} },
    payload: notification.payload,
    actor: actor ?? {},
    tenant: tenant ? { identifier: tenant.identifier, name: tenant.name, data: tenant.data } : {},
    step: input.digestEvents
      ? { events: input.digestEvents, total_count: input.digestEvents.length, digest: true }
      : { events: [notification.payload], total_count: 1, digest: false },
  };
}

/**
 * Walks a workflow's steps for one subscriber from `startIndex`: picks each step's variant, applies
 * filters, renders channel steps, and stops at a delay (returning where to resume). Pure: it reads no
 * storage and no clock, so the same input always gives the same walk.
 */
export function walkSteps(input: WalkInput): WalkResult {
  const { workflow, notification, now } = input;
  const variables = walkVariables(input);
  const deliveries: Delivery[] = [];
  const trace: TraceEntry[] = [];
  for (let stepIndex = input.startIndex; stepIndex < workflow.steps.length; stepIndex++) {
    const base = workflow.steps[stepIndex]!;
    const entry = (decision: TraceEntry['decision'], reason: string, extra: Partial<TraceEntry> = {}) =>
      trace.push({ stepIndex, stepId: base._id ?? String(stepIndex), type: base.template.type, decision, reason, ...extra });
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
        return { deliveries, resume: { stepIndex: stepIndex + 1, runAt: due.runAt }, trace };
      }
      entry('delayed', 'the delay had already passed', chosen);
      continue;
    }
    if (type === 'digest') return { deliveries, resume: null, digest: { stepIndex, step }, trace };
    if (!isChannel(type)) continue;
    const permitted = channelPermitted(workflow, input.preferences, type);
    if (!permitted.allowed) {
      entry('skipped', permitted.reason, chosen);
      continue;
    }
    if (type !== 'in_app' && !workflow.critical) {
      const schedule = input.preferences.find((row) => row.workflowId === null)?.schedule;
      const zone = input.subscriber.timezone ?? 'UTC';
      if (!isWithinSchedule(schedule, now, zone)) {
        const opening = input.outsideSchedule === 'defer' ? nextScheduleOpening(schedule, now, zone) : null;
        if (!opening) {
          entry('skipped', input.outsideSchedule === 'skip' ? "outside the subscriber's delivery schedule" : "the subscriber's delivery schedule never opens", chosen);
          continue;
        }
        entry('held', `outside the subscriber's delivery schedule; held until ${opening.toISOString()}`, chosen);
        return { deliveries, resume: { stepIndex, runAt: opening }, trace };
      }
    }
    try {
      deliveries.push({ stepIndex, step, channel: type, rendered: renderStep(step.template, variables, input.renderBudget) });
      entry('delivered', `rendered for ${type}`, chosen);
    } catch (error) {
      entry('failed', `template failed to render: ${error instanceof Error ? error.message : String(error)}`, chosen);
      if (step.shouldStopOnFail) break;
    }
  }
  return { deliveries, resume: null, trace };
}
