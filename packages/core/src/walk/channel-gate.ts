import { channelPermitted, globalRow } from '../preferences/resolve-preferences.js';
import { subscriptionPermitted } from '../preferences/subscription-preferences.js';
import type { Channel, Workflow } from '../schemas/index.js';
import { isWithinSchedule, nextScheduleOpening } from '../schedule/weekly-schedule.js';
import type { WalkInput } from './walker.js';

/** Whether a channel step sends now, is left out, or waits for the subscriber's schedule to open. */
export type ChannelGate = { readonly kind: 'send' } | { readonly kind: 'skip'; readonly reason: string } | { readonly kind: 'hold'; readonly runAt: Date; readonly reason: string };

/**
 * The subscriber's say over one channel step: preferences, then the subscriptions a topic trigger
 * reached them through (critical workflows pass both), then, for every channel but in-app, the weekly
 * delivery schedule in the subscriber's zone.
 */
export function channelGate(input: Pick<WalkInput, 'preferences' | 'reach' | 'subscriber' | 'now' | 'outsideSchedule'>, workflow: Workflow, channel: Channel): ChannelGate {
  const permitted = channelPermitted(workflow, input.preferences, channel);
  if (!permitted.allowed) return { kind: 'skip', reason: permitted.reason };
  const subscribed = subscriptionPermitted(workflow, input.reach, channel);
  if (!subscribed.allowed) return { kind: 'skip', reason: subscribed.reason };
  if (channel === 'in_app' || workflow.critical) return { kind: 'send' };
  const schedule = globalRow(input.preferences)?.schedule;
  const zone = input.subscriber.timezone ?? 'UTC';
  if (isWithinSchedule(schedule, input.now, zone)) return { kind: 'send' };
  const opening = input.outsideSchedule === 'defer' ? nextScheduleOpening(schedule, input.now, zone) : null;
  if (!opening) return { kind: 'skip', reason: input.outsideSchedule === 'skip' ? "outside the subscriber's delivery schedule" : "the subscriber's delivery schedule never opens" };
  return { kind: 'hold', runAt: opening, reason: `outside the subscriber's delivery schedule; held until ${opening.toISOString()}` };
}
