import { z } from 'zod';
import { channelSchema, isoInstantSchema, overrideSourceSchema } from './enums.js';
import { channelPreferencesSchema, scheduleSchema } from './schedule.js';

export const preferencesPatchSchema = z.object({
  channels: channelPreferencesSchema.optional(),
  workflowId: z.string().trim().min(1).optional(),
  schedule: scheduleSchema.optional(),
});
export type PreferencesPatch = z.input<typeof preferencesPatchSchema>;

/** One stored preference row: global when `workflowId` is null. */
export const preferenceRowSchema = z.object({
  subscriberId: z.string(),
  workflowId: z.string().nullable(),
  enabled: z.boolean(),
  channels: channelPreferencesSchema,
  schedule: scheduleSchema.optional(),
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
});
export type WorkflowPreference = z.infer<typeof workflowPreferenceSchema>;

export const preferencesSchema = z.object({ global: globalPreferenceSchema, workflows: z.array(workflowPreferenceSchema) });
export type Preferences = z.infer<typeof preferencesSchema>;
