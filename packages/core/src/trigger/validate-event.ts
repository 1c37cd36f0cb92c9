import type { FieldIssue } from '../errors.js';
import { TRIGGER_MEMBER_HINTS, triggerEventSchema, type ParsedTriggerEvent } from '../schemas/index.js';
import { inputHazards, issuesOf } from '../validation.js';

export type EventValidation = { ok: true; event: ParsedTriggerEvent } | { ok: false; errors: string[]; issues: FieldIssue[] };

/** Checks one event of a trigger call; errors name each bad member (`to[1].subscriberId: …`). */
export function validateEvent(raw: unknown): EventValidation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return refused([{ path: '', message: 'event must be an object' }]);
  const hazards = inputHazards(raw);
  if (hazards.length > 0) return refused(hazards);
  const parsed = triggerEventSchema.safeParse(raw);
  return parsed.success ? { ok: true, event: parsed.data } : refused(issuesOf(parsed.error, '', TRIGGER_MEMBER_HINTS));
}

/** What is wrong with a trigger event, member by member; empty when it is valid. */
export function triggerEventIssues(raw: unknown): FieldIssue[] {
  const validation = validateEvent(raw);
  return validation.ok ? [] : validation.issues;
}

function refused(issues: FieldIssue[]): EventValidation {
  const errors = [...new Set(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)))];
  return { ok: false, errors, issues };
}
