import { z } from 'zod';
import { channelSchema, isoInstantSchema, overrideSourceSchema } from './enums.js';
import { channelPreferencesSchema, scheduleSchema } from './schedule.js';
import { cadenceChoiceSchema } from './digest-cadence.js';

export const preferencesPatchSchema = z
  .object({
    channels: channelPreferencesSchema.optional(),
    workflowId: z.string().trim().min(1).optional(),
    schedule: scheduleSchema.optional(),
    /** The id of the digest cadence the subscriber picks among those the workflow offers; null goes back to its default. */
    digest: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').nullable().optional(),
  })
  .refine((patch) => patch.digest === undefined || patch.workflowId !== undefined, { path: ['digest'], message: 'is chosen per workflow: give workflowId with it' });
export type PreferencesPatch = z.input<typeof preferencesPatchSchema>;

/** One stored preference row: global when `workflowId` is null. */
export const preferenceRowSchema = z.object({
  subscriberId: z.string(),
  workflowId: z.string().nullable(),
  enabled: z.boolean(),
  channels: channelPreferencesSchema,
  schedule: scheduleSchema.optional(),
  /** The id of the digest cadence the subscriber chose for this workflow. */
  digest: z.string().optional(),
  updatedAt: isoInstantSchema,
});
export type PreferenceRow = z.infer<typeof preferenceRowSchema>;

export const globalPreferenceSchema = z.object({
  enabled: z.boolean(),
  channels: channelPreferencesSchema,
  schedule: scheduleSchema.optional(),
});
export type GlobalPreference = z.infer<typeof globalPreferenceSchema>;

export const workflowPreferenceSchema = z.object({
  enabled: z.boolean(),
  channels: channelPreferencesSchema,
  overrides: z.array(z.object({ channel: channelSchema, source: overrideSourceSchema })),
  workflow: z.object({ slug: z.string(), identifier: z.string(), name: z.string(), updatedAt: z.string().optional() }),
  /** Only for a workflow whose digest takes its window from the subscriber: the cadence in effect and those offered. */
  digest: z
    .object({
      choice: z.string(),
      source: z.enum(['subscriber', 'default']),
      default: z.string(),
      choices: z.array(cadenceChoiceSchema),
    })
    .optional(),
});
export type WorkflowPreference = z.infer<typeof workflowPreferenceSchema>;

export const preferencesSchema = z.object({ global: globalPreferenceSchema, workflows: z.array(workflowPreferenceSchema) });
export type Preferences = z.infer<typeof preferencesSchema>;
