import type { z } from 'zod';
import type { FieldIssue } from '../errors.js';
import { BROADCAST_MEMBER_HINTS, TRIGGER_MEMBER_HINTS, broadcastEventSchema, triggerEventSchema, type ParsedBroadcastEvent, type ParsedTriggerEvent } from '../schemas/index.js';
import { inputHazards, issuesOf, type MemberHints } from '../validation.js';

export type EventValidation<E = ParsedTriggerEvent> = { ok: true; event: E } | { ok: false; errors: string[]; issues: FieldIssue[] };

/** Checks one event of a trigger call; errors name each bad member (`to[1].subscriberId: …`). */
export function validateEvent(raw: unknown): EventValidation {
  return validateWith(raw, triggerEventSchema, TRIGGER_MEMBER_HINTS);
}

/** Checks a broadcast event: a trigger's members but `to`. */
export function validateBroadcast(raw: unknown): EventValidation<ParsedBroadcastEvent> {
  return validateWith(raw, broadcastEventSchema, BROADCAST_MEMBER_HINTS);
}

function validateWith<S extends z.ZodType>(raw: unknown, schema: S, hints: MemberHints): EventValidation<z.output<S>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return refused([{ path: '', message: 'event must be an object' }]);
  const hazards = inputHazards(raw);
  if (hazards.length > 0) return refused(hazards);
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, event: parsed.data } : refused(issuesOf(parsed.error, '', hints));
}

/** What is wrong with a trigger event, member by member; empty when it is valid. */
export function triggerEventIssues(raw: unknown): FieldIssue[] {
  const validation = validateEvent(raw);
  return validation.ok ? [] : validation.issues;
}

/** What is wrong with a broadcast event, member by member; empty when it is valid. */
export function broadcastEventIssues(raw: unknown): FieldIssue[] {
  const validation = validateBroadcast(raw);
  return validation.ok ? [] : validation.issues;
}

function refused(issues: FieldIssue[]): { ok: false; errors: string[]; issues: FieldIssue[] } {
  const errors = [...new Set(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)))];
  return { ok: false, errors, issues };
}
