import { z } from 'zod';
import { weekdaySchema } from './enums.js';

/** At most this many cadences a digest step offers its subscribers. */
export const MAX_CADENCE_CHOICES = 20;

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const atTimeSchema = z.string().regex(HH_MM, 'must be a 24-hour time HH:mm');

const choiceFields = {
  /** What the subscriber picks: `preferences.update(id, { workflowId, digest: 'daily' })`. */
  id: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  /** How an app shows the choice; Tidings only passes it on. */
  label: z.string().max(200, 'must be at most 200 characters').optional(),
};

/**
 * One cadence a digest step offers, on the subscriber's wall clock: `instant` (each event on its own,
 * no digest), `hourly` (on the hour), `daily` at `atTime`, `weekly` on `weekDay` at `atTime`.
 */
export const cadenceChoiceSchema = z.discriminatedUnion('cadence', [
  z.strictObject({ ...choiceFields, cadence: z.literal('instant') }),
  z.strictObject({ ...choiceFields, cadence: z.literal('hourly') }),
  z.strictObject({ ...choiceFields, cadence: z.literal('daily'), atTime: atTimeSchema }),
  z.strictObject({ ...choiceFields, cadence: z.literal('weekly'), weekDay: weekdaySchema, atTime: atTimeSchema }),
]);
export type CadenceChoice = z.infer<typeof cadenceChoiceSchema>;

const offerFields = {
  choices: z.array(cadenceChoiceSchema).min(1, 'must offer at least one cadence').max(MAX_CADENCE_CHOICES, `must offer at most ${MAX_CADENCE_CHOICES} cadences`),
  /** The id of the choice a subscriber who chose nothing gets. */
  default: z.string(),
};

function checkOffer(offer: { choices: readonly CadenceChoice[]; default: string }, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  offer.choices.forEach((choice, i) => {
    const first = seen.get(choice.id);
    if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['choices', i, 'id'], message: `repeats the id of choices[${first}] ("${choice.id}")` });
    else seen.set(choice.id, i);
  });
  if (!seen.has(offer.default)) {
    ctx.addIssue({ code: 'custom', path: ['default'], message: `must be the id of one of the choices (${[...seen.keys()].map((id) => `"${id}"`).join(', ')})` });
  }
}

/** The cadences a code workflow's digest offers (`step.digest(…, { cadence })`). */
export const cadenceOfferSchema = z.strictObject(offerFields).superRefine(checkOffer);
export type CadenceOffer = z.infer<typeof cadenceOfferSchema>;

/**
 * A digest whose window the subscriber chooses among the cadences the step offers (their choice is
 * kept in their preferences for the workflow); `default` names the choice of those who chose none.
 */
export const digestPreferenceMetadataSchema = z
  .strictObject({ type: z.literal('preference'), digestKey: z.string().optional(), ...offerFields })
  .superRefine(checkOffer);
export type DigestPreferenceMetadata = z.infer<typeof digestPreferenceMetadataSchema>;
