import type { ParsedTriggerEvent, SubscriberPatch } from '../schemas/index.js';

export interface RecipientPlan {
  /** Subscribers named directly, in order, each once; `patch` holds the inline fields to upsert. */
  readonly direct: { subscriberId: string; patch: SubscriberPatch | null }[];
  readonly topicKeys: string[];
}

/**
 * Splits `to` into subscribers named directly and topics to expand. A subscriber given twice keeps
 * its first place; its inline fields are merged in order, so later values win.
 */
export function readRecipients(to: ParsedTriggerEvent['to']): RecipientPlan {
  const list = Array.isArray(to) ? to : [to];
  const direct = new Map<string, SubscriberPatch | null>();
  const topicKeys: string[] = [];
  for (const recipient of list) {
    if (typeof recipient === 'string') {
      const id = recipient.trim();
      if (id && !direct.has(id)) direct.set(id, null);
    } else if ('type' in recipient && recipient.type === 'Topic' && 'topicKey' in recipient) {
      if (!topicKeys.includes(recipient.topicKey)) topicKeys.push(recipient.topicKey);
    } else if ('subscriberId' in recipient) {
      const previous = direct.get(recipient.subscriberId);
      direct.set(recipient.subscriberId, previous ? { ...previous, ...recipient } : recipient);
    }
  }
  return { direct: [...direct].map(([subscriberId, patch]) => ({ subscriberId, patch })), topicKeys };
}
