import type { ParsedTriggerEvent, SubscriberPatch } from '../schemas/index.js';
import type { RecipientPlan } from './read-recipients.js';

/**
 * The subscriber writes one event makes, in order: each subscriber it names with inline fields, a
 * bare subscriber for an id named alone that is not stored (once: `stored` takes the ids it creates),
 * then the actor given with inline fields.
 */
export function subscriberWrites(plan: RecipientPlan, actor: ParsedTriggerEvent['actor'], stored: Set<string>): SubscriberPatch[] {
  const writes: SubscriberPatch[] = [];
  for (const { subscriberId, patch } of plan.direct) {
    if (patch !== null) writes.push(patch);
    else if (!stored.has(subscriberId)) {
      writes.push({ subscriberId });
      stored.add(subscriberId);
    }
  }
  if (typeof actor === 'object') writes.push(actor);
  return writes;
}
