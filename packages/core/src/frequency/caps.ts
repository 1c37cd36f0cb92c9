import { capId, type Cap, type Channel } from '../schemas/index.js';
import { describeWindow, windowDecision, windowMs } from './sliding-window.js';

/** What a workflow's caps are matched by. */
export interface CappedWorkflow {
  readonly tags: readonly string[];
  readonly critical: boolean;
}

/** The caps a message of this channel from this workflow counts against: none for a critical workflow. */
export function capsFor(caps: readonly Cap[], channel: Channel, workflow: CappedWorkflow): Cap[] {
  if (workflow.critical) return [];
  return caps.filter((cap) => (cap.channel === undefined || cap.channel === channel) && (cap.tags === undefined || cap.tags.some((tag) => workflow.tags.includes(tag))));
}

/** The count a cap keeps for one subscriber. */
export const capCounterKey = (cap: Cap, subscriberId: string): string => `cap:${JSON.stringify([capId(cap), subscriberId])}`;

/** Whether one more message fits every cap it counts against, given each cap's hits (oldest first). */
export type CapsDecision =
  | { readonly kind: 'send' }
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'defer'; readonly until: Date; readonly reason: string };

/**
 * One more message against `caps` at `now`: sent when every cap has room; over a `skip` cap it is not
 * sent; over `defer` caps only, it waits until the last of them has room again.
 */
export function capsDecision(caps: readonly Cap[], hitsOf: (cap: Cap) => readonly string[], now: Date): CapsDecision {
  const full = caps.flatMap((cap) => {
    const decision = windowDecision(hitsOf(cap), cap.limit, now, windowMs(cap.per));
    return decision.allowed ? [] : [{ cap, freesAt: decision.freesAt!, count: decision.count }];
  });
  if (full.length === 0) return { kind: 'send' };
  const describe = ({ cap, count }: (typeof full)[number]) => `cap "${capId(cap)}": ${count} of ${cap.limit} in the last ${describeWindow(cap.per)}`;
  const skipping = full.find((f) => f.cap.mode === 'skip');
  if (skipping) return { kind: 'skip', reason: `over the ${describe(skipping)}; not sent` };
  const last = full.reduce((a, b) => (b.freesAt > a.freesAt ? b : a));
  return { kind: 'defer', until: last.freesAt, reason: `over the ${full.map(describe).join(' and the ')}; waits until ${last.freesAt.toISOString()}` };
}
