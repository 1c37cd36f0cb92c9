import { z } from 'zod';
import { channelSchema, isoInstantSchema, overrideSourceSchema } from './enums.js';
import { channelPreferencesSchema, scheduleSchema } from './schedule.js';
import { cadenceChoiceSchema } from './digest-cadence.js';
import { categoryKeySchema } from './category.js';

export const preferencesPatchSchema = z
  .object({
    channels: channelPreferencesSchema.optional(),
    workflowId: z.string().trim().min(1).optional(),
    schedule: scheduleSchema.optional(),
    /** The id of the digest cadence the subscriber picks among those the workflow offers; null goes back to its default. */
    digest: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').nullable().optional(),
    /** Channel flags per category (`{ marketing: { email: false } }`): above global, below a workflow's own. */
    categories: z.record(categoryKeySchema, channelPreferencesSchema).optional(),
  })
  .refine((patch) => patch.digest === undefined || patch.workflowId !== undefined, { path: ['digest'], message: 'is chosen per workflow: give workflowId with it' });
export type PreferencesPatch = z.input<typeof preferencesPatchSchema>;

/** One stored preference row: a workflow's, a category's (`workflowId` null, `category` set), or the global one. */
export const preferenceRowSchema = z.object({
  subscriberId: z.string(),
  workflowId: z.string().nullable(),
  category: z.string().optional(),
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
  /** The workflow's category, whose flags the workflow's own override. */
  category: z.string().optional(),
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

/** A category's channels as the subscriber set them (unset: the global flag), over the channels its workflows use. */
export const categoryPreferenceSchema = z.object({
  key: z.string(),
  name: z.string(),
  description: z.string().optional(),
  channels: channelPreferencesSchema,
  /** The identifiers of its active, non-critical workflows. */
  workflows: z.array(z.string()),
});
export type CategoryPreference = z.infer<typeof categoryPreferenceSchema>;

export const preferencesSchema = z.object({ global: globalPreferenceSchema, categories: z.array(categoryPreferenceSchema), workflows: z.array(workflowPreferenceSchema) });
export type Preferences = z.infer<typeof preferencesSchema>;

/** How a preference change came: the app's API, Novu's Inbox, the preference page, or one-click unsubscribe. */
export const preferenceOriginSchema = z.enum(['api', 'inbox', 'page', 'one-click']);
export type PreferenceOrigin = z.infer<typeof preferenceOriginSchema>;

/** What a signed link allowed (recorded with the changes made through it). */
export const linkScopeSchema = z.strictObject({
  purpose: z.enum(['preferences', 'unsubscribe']),
  workflowId: z.string().optional(),
  category: z.string().optional(),
  tenant: z.string().optional(),
  expiresAt: isoInstantSchema.optional(),
});
export type LinkScope = z.infer<typeof linkScopeSchema>;

/** `preferences.update(id, patch, options)`: who is changing them, recorded in the audit trail. */
export const preferenceUpdateOptionsSchema = z.strictObject({
  /** @default 'api' */
  origin: preferenceOriginSchema.optional(),
  /** The signed link the change came through. */
  scope: linkScopeSchema.optional(),
});
export type PreferenceUpdateOptions = z.input<typeof preferenceUpdateOptionsSchema>;

/** One entry of a subscriber's preference audit trail: the patches applied, how, when and through what. */
export const preferenceChangeSchema = z.object({
  id: z.string(),
  subscriberId: z.string(),
  origin: preferenceOriginSchema,
  at: isoInstantSchema,
  patches: z.array(z.record(z.string(), z.unknown())),
  scope: linkScopeSchema.optional(),
});
export type PreferenceChange = z.infer<typeof preferenceChangeSchema>;
