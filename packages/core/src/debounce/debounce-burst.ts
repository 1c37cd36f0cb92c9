import type { Debounce } from '../schemas/debounce.js';
import type { BroadcastEvent, TriggerEvent } from '../schemas/index.js';
import { debounceDueAt, type DebounceGroup } from './debounce-group.js';

/** How many of a burst's earlier transactionIds its record keeps (for `debounce.fired`). */
export const FOLDED_KEPT = 100;

/** A burst of debounced triggers waiting to run: its last event, and when it runs. */
export interface DebounceRecord {
  readonly group: string;
  readonly workflowId: string;
  /** The burst's key as rendered. */
  readonly key: string;
  /** The debounce in force when the burst's last trigger came. */
  readonly debounce: Debounce;
  /** Whom the event goes to: the recipients it names, or every subscriber (a broadcast). */
  readonly addressing: 'named' | 'everyone';
  /** The last trigger's event, as checked, with its transactionId: what runs. */
  readonly event: TriggerEvent | BroadcastEvent;
  readonly firstAt: string;
  readonly lastAt: string;
  readonly dueAt: string;
  /** Counts the triggers folded in since the burst began: a run ends the burst only if none came meanwhile. */
  readonly generation: number;
  /** The transactionIds of the burst's earlier triggers, which run nothing of their own (the latest `FOLDED_KEPT`). */
  readonly folded: readonly string[];
}

/** One debounced trigger, checked and ready to join its burst. */
export interface HeldTrigger {
  readonly group: DebounceGroup;
  readonly debounce: Debounce;
  readonly workflowId: string;
  readonly addressing: 'named' | 'everyone';
  readonly event: TriggerEvent | BroadcastEvent;
}

/** The burst after a trigger joined it (or began it): the trigger's event is the one that runs, later. */
export function joinBurst(burst: DebounceRecord | undefined, held: HeldTrigger, now: Date): DebounceRecord {
  const firstAt = burst ? new Date(burst.firstAt) : now;
  const earlier = burst?.event.transactionId;
  return {
    group: held.group.id,
    workflowId: held.workflowId,
    key: held.group.key,
    debounce: held.debounce,
    addressing: held.addressing,
    event: held.event,
    firstAt: firstAt.toISOString(),
    lastAt: now.toISOString(),
    dueAt: debounceDueAt(held.debounce, firstAt, now).toISOString(),
    generation: (burst?.generation ?? 0) + 1,
    folded: burst ? [...burst.folded, ...(earlier === undefined ? [] : [earlier])].slice(-FOLDED_KEPT) : [],
  };
}

/**
 * What is left of a burst after one of its runs: nothing when no trigger joined while it ran;
 * otherwise the triggers that joined are a burst of their own, begun at the latest of them.
 */
export function afterRun(burst: DebounceRecord, ran: { generation: number; transactionId: string; folded: readonly string[] }): DebounceRecord | null {
  if (burst.generation === ran.generation) return null;
  const done = new Set([...ran.folded, ran.transactionId]);
  const lastAt = new Date(burst.lastAt);
  return { ...burst, firstAt: burst.lastAt, dueAt: debounceDueAt(burst.debounce, lastAt, lastAt).toISOString(), generation: 1, folded: burst.folded.filter((id) => !done.has(id)) };
}
