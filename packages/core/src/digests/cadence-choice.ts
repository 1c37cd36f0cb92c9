import type { CadenceChoice, DigestPreferenceMetadata, Step, Workflow } from '../schemas/index.js';
import { describeCadence } from '../timing/cadence-due-at.js';

/** The cadence a preference digest uses for one subscriber, and where it came from. */
export interface ChosenCadence {
  readonly choice: CadenceChoice;
  /** `subscriber`: their choice; `default`: the step's default (they chose none, or one no longer offered). */
  readonly source: 'subscriber' | 'default';
  /** The subscriber's stored choice when the step no longer offers it. */
  readonly stale?: string;
}

/**
 * The cadence of a preference digest for a subscriber whose stored choice is `chosen`: their choice
 * when the step offers it, else the step's default.
 */
export function chooseCadence(metadata: Pick<DigestPreferenceMetadata, 'choices' | 'default'>, chosen: string | undefined): ChosenCadence {
  const picked = chosen === undefined ? undefined : metadata.choices.find((c) => c.id === chosen);
  if (picked) return { choice: picked, source: 'subscriber' };
  // The schema holds the default among the choices; the first choice only guards a hand-made record.
  const fallback = metadata.choices.find((c) => c.id === metadata.default) ?? metadata.choices[0]!;
  return { choice: fallback, source: 'default', ...(chosen !== undefined && { stale: chosen }) };
}

const preferenceMetadata = (step: Pick<Step, 'active' | 'template' | 'metadata'>): DigestPreferenceMetadata | null =>
  step.active && step.template.type === 'digest' && step.metadata !== undefined && 'type' in step.metadata && step.metadata.type === 'preference' ? step.metadata : null;

/**
 * The cadences a workflow lets its subscribers choose from: those of its first active digest step
 * (or variant) that takes its window from the subscriber's preference; null when it has none.
 */
export function offeredCadences(workflow: Pick<Workflow, 'steps'>): DigestPreferenceMetadata | null {
  for (const step of workflow.steps) {
    const found = preferenceMetadata(step) ?? step.variants.map(preferenceMetadata).find((m) => m !== null) ?? null;
    if (found) return found;
  }
  return null;
}

/** How `explain` names the cadence a digest used: `subscriber's choice 'daily' (daily at 09:00 Europe/Paris)`. */
export function cadenceNote(chosen: ChosenCadence, timeZone: string): string {
  const what = `'${chosen.choice.id}' (${describeCadence(chosen.choice, timeZone)})`;
  if (chosen.source === 'subscriber') return `subscriber's choice ${what}`;
  if (chosen.stale !== undefined) return `workflow's default ${what}, as the subscriber's choice '${chosen.stale}' is no longer offered`;
  return `workflow's default ${what}, as the subscriber chose none`;
}

/** Why a subscriber may not choose cadence `id` for `workflow`, or null when they may. */
export function cadenceChoiceProblem(workflow: Pick<Workflow, 'steps' | 'identifier'>, id: string): string | null {
  const offer = offeredCadences(workflow);
  if (!offer) return `workflow "${workflow.identifier}" has no digest whose cadence the subscriber chooses (metadata.type "preference")`;
  if (offer.choices.some((c) => c.id === id)) return null;
  return `"${id}" is not a cadence workflow "${workflow.identifier}" offers (${offer.choices.map((c) => `"${c.id}"`).join(', ')})`;
}
