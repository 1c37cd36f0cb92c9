import { createHash } from 'node:crypto';
import { windowMs, type Debounce } from '../schemas/debounce.js';
import type { ParsedBroadcastEvent, ParsedTriggerEvent } from '../schemas/index.js';
import { renderTemplate } from '../templates/render.js';
import { readRecipients } from '../trigger/read-recipients.js';
import { canonicalJson } from '../contexts/context-keys.js';

/** Who an event goes to, as a burst compares it: its direct subscribers and topics, in a stable order. */
function recipientsOf(event: ParsedTriggerEvent | ParsedBroadcastEvent): unknown {
  if (!('to' in event)) return 'everyone';
  const plan = readRecipients(event.to);
  return {
    subscribers: plan.direct.map((d) => d.subscriberId).sort(),
    topics: plan.topics.map((t) => ({ topicKey: t.topicKey, exclude: [...new Set(t.exclude)].sort() })).sort((a, b) => (a.topicKey < b.topicKey ? -1 : 1)),
  };
}

/** What a debounce key template sees of an event. */
const keyVariables = (event: ParsedTriggerEvent | ParsedBroadcastEvent) => ({
  payload: event.payload,
  tenant: typeof event.tenant === 'object' ? event.tenant.identifier : event.tenant ?? null,
  actor: typeof event.actor === 'object' ? event.actor.subscriberId : event.actor ?? null,
});

/** The burst an event belongs to: one workflow, the same recipients, the same rendered key. */
export interface DebounceGroup {
  /** The record and job key: a hash of what the burst shares. */
  readonly id: string;
  /** The key as rendered for this event. */
  readonly key: string;
}

/** The event's burst, or the error that refuses the event (its key template does not render). */
export function debounceGroup(workflowId: string, debounce: Debounce, event: ParsedTriggerEvent | ParsedBroadcastEvent): { ok: true; group: DebounceGroup } | { ok: false; error: string } {
  let key: string;
  try {
    key = renderTemplate(debounce.key, keyVariables(event));
  } catch (error) {
    return { ok: false, error: `debounce.key: does not render: ${error instanceof Error ? error.message : String(error)}` };
  }
  const id = createHash('sha256').update(canonicalJson({ workflowId, key, recipients: recipientsOf(event) })).digest('base64url');
  return { ok: true, group: { id, key } };
}

/** When a burst that began at `firstAt` and last grew at `lastAt` runs: `period` after its last trigger, never past `maxWait` after its first. */
export function debounceDueAt(debounce: Debounce, firstAt: Date, lastAt: Date): Date {
  const quiet = lastAt.getTime() + windowMs(debounce.period);
  const cap = debounce.maxWait === undefined ? Infinity : firstAt.getTime() + windowMs(debounce.maxWait);
  return new Date(Math.min(quiet, cap));
}
