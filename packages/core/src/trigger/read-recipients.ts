import type { ParsedTriggerEvent, SubscriberPatch } from '../schemas/index.js';

export interface RecipientPlan {
  /** Subscribers named directly, in order, each once; `patch` holds the inline fields to upsert. */
  readonly direct: { subscriberId: string; patch: SubscriberPatch | null }[];
  /** Topics to expand, each once, with the members left out of its fan-out (merged when named twice). */
  readonly topics: { topicKey: string; exclude: string[] }[];
}

/**
 * Splits `to` into subscribers named directly and topics to expand. A subscriber given twice keeps
 * its first place; its inline fields are merged in order, so later values win.
 */
export function readRecipients(to: ParsedTriggerEvent['to']): RecipientPlan {
  const list = Array.isArray(to) ? to : [to];
  const direct = new Map<string, SubscriberPatch | null>();
  const topics = new Map<string, string[]>();
  for (const recipient of list) {
    if (typeof recipient === 'string') {
      const id = recipient.trim();
      if (id && !direct.has(id)) direct.set(id, null);
    } else if (recipient.type === 'Topic') {
      topics.set(recipient.topicKey, [...(topics.get(recipient.topicKey) ?? []), ...(recipient.exclude ?? [])]);
    } else {
      const { type: _subscriber, ...patch } = recipient;
      const previous = direct.get(patch.subscriberId);
      direct.set(patch.subscriberId, previous ? { ...previous, ...patch } : patch);
    }
  }
  return {
    direct: [...direct].map(([subscriberId, patch]) => ({ subscriberId, patch })),
    topics: [...topics].map(([topicKey, exclude]) => ({ topicKey, exclude })),
  };
}

/**
 * The members of the plan's topics who get the event: every member once, less each topic's
 * exclusions (a member excluded from one topic still gets it through another) and less the actor.
 * `memberIds` reads one group of topics; topics without exclusions are read together.
 */
export async function topicAudience(
  topics: RecipientPlan['topics'],
  actorId: string | null,
  memberIds: (topicKeys: string[]) => Promise<string[]>,
): Promise<Set<string>> {
  const audience = new Set<string>();
  const plain = topics.filter((t) => t.exclude.length === 0).map((t) => t.topicKey);
  if (plain.length > 0) for (const id of await memberIds(plain)) audience.add(id);
  for (const { topicKey, exclude } of topics.filter((t) => t.exclude.length > 0)) {
    const left = new Set(exclude);
    for (const id of await memberIds([topicKey])) if (!left.has(id)) audience.add(id);
  }
  if (actorId !== null) audience.delete(actorId);
  return audience;
}
