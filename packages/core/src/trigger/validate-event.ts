import { triggerEventSchema, type ParsedTriggerEvent } from '../schemas/index.js';
import { inputHazards, issuesOf } from '../validation.js';

export type EventValidation = { ok: true; event: ParsedTriggerEvent } | { ok: false; errors: string[] };

/** Checks one event of a trigger call; errors name each bad member (`to[1].subscriberId: …`). */
export function validateEvent(raw: unknown): EventValidation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, errors: ['event must be an object'] };
  const hazards = inputHazards(raw);
  if (hazards.length > 0) return { ok: false, errors: hazards.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)) };
  const parsed = triggerEventSchema.safeParse(raw);
  if (parsed.success) return { ok: true, event: parsed.data };
  const seen = new Set<string>();
  const errors: string[] = [];
  for (const issue of issuesOf(parsed.error)) {
    const text = issue.path ? `${issue.path}: ${issue.message}` : issue.message;
    if (!seen.has(text)) errors.push(text);
    seen.add(text);
  }
  return { ok: false, errors };
}
