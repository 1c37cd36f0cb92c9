import { z } from 'zod';
import { filterSchema } from './filter.js';
import { channelSchema, jsonObjectSchema, stepTypeSchema, timeUnitSchema, weekdaySchema } from './enums.js';
import { emailBlockSchema, messageCtaSchema } from './message-parts.js';
import { parseCron } from '../timing/cron.js';
import { digestPreferenceMetadataSchema } from './digest-cadence.js';
import { throttleMetadataSchema } from './frequency.js';
import { waitMetadataSchema } from './wait.js';
import { ttlSchema } from './expiry.js';
import { emailHeaderTemplatesSchema } from './email-headers.js';
import { MAX_EMAIL_OVERRIDE_ADDRESSES } from './email-overrides.js';
import { httpStepSchema } from './http-step.js';
import { branchStepSchema } from './branch-step.js';

const amountSchema = z.number().positive();

export const digestRegularMetadataSchema = z.strictObject({
  type: z.enum(['regular', 'backoff']),
  amount: amountSchema.optional(),
  unit: timeUnitSchema.optional(),
  digestKey: z.string().optional(),
  backoff: z.boolean().optional(),
  backoffAmount: amountSchema.optional(),
  backoffUnit: timeUnitSchema.optional(),
  updateMode: z.boolean().optional(),
});

const ATTIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
const MONTH_DAY = /^([1-9]|[12]\d|3[01])$/;

const ORDINAL = z.enum(['1', '2', '3', '4', '5', 'last']);

export const timedConfigSchema = z.strictObject({
  atTime: z.string().regex(ATTIME, 'must be a 24-hour time HH:mm or HH:mm:ss').optional(),
  weekDays: z.array(weekdaySchema).optional(),
  monthDays: z.array(z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(MONTH_DAY, 'must be a day of the month from 1 to 31'))).optional(),
  // A number is kept as its text, typed as the enum, so a stored workflow type-checks as an input again.
  ordinal: z.union([ORDINAL, z.number().int().min(1).max(5).transform((n) => String(n) as z.infer<typeof ORDINAL>)]).optional(),
  ordinalValue: z.enum(['day', 'weekday', 'weekend', ...weekdaySchema.options]).optional(),
  monthlyType: z.enum(['each', 'on']).optional(),
});
export type TimedConfig = z.infer<typeof timedConfigSchema>;

export const digestTimedMetadataSchema = z.strictObject({
  type: z.literal('timed'),
  amount: amountSchema.optional(),
  unit: timeUnitSchema.optional(),
  digestKey: z.string().optional(),
  timed: timedConfigSchema.optional(),
  /** A 5-field cron expression on the subscriber's clock, in place of `timed` (`0 9 * * 1-5`). */
  cron: z.string().refine((text) => !('error' in parseCron(text)), { message: 'must be a 5-field cron expression' }).optional(),
});

export const delayScheduledMetadataSchema = z.strictObject({
  type: z.literal('scheduled'),
  delayPath: z.string().min(1),
});

export const digestMetadataSchema = z.discriminatedUnion('type', [digestRegularMetadataSchema, digestTimedMetadataSchema, digestPreferenceMetadataSchema]);
export type DigestMetadata = z.infer<typeof digestMetadataSchema>;

export const delayRegularMetadataSchema = z.strictObject({
  type: z.literal('regular'),
  amount: amountSchema.optional(),
  unit: timeUnitSchema.optional(),
});
export const delayMetadataSchema = z.discriminatedUnion('type', [delayRegularMetadataSchema, delayScheduledMetadataSchema]);
export type DelayMetadata = z.infer<typeof delayMetadataSchema>;

/** A payload variable a step reads (Novu's step `variables`): its default fills an event that leaves it out. */
export const templateVariableSchema = z.strictObject({
  /** A path in the payload: `user.lastName`. */
  name: z.string().trim().min(1, 'must not be empty'),
  type: z.enum(['String', 'Array', 'Boolean']).optional(),
  required: z.boolean().optional(),
  defaultValue: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
});
export type TemplateVariable = z.infer<typeof templateVariableSchema>;

/**
 * Names every layout already sees as a variable, so no slot may take them: a slot would hide the
 * step's own data (`brand`, `payload`, …) or the body's place.
 */
const LAYOUT_VARIABLES = ['content', 'subject', 'preheader', 'locale', 'subscriber', 'payload', 'actor', 'tenant', 'brand', 'step', 't', 'preferencesUrl', 'unsubscribeUrl'];

/** A layout's named slot (`{{ footer }}`): a liquid variable name that is not one of the layout's own. */
export const slotNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,49}$/, 'a slot name must be letters, digits and "_" (starting with a letter or "_"), at most 50 characters')
  .refine((name) => !LAYOUT_VARIABLES.includes(name), `a slot name must not be one of the layout's own variables (${LAYOUT_VARIABLES.join(', ')})`);

/** An email step's texts for its layout's named slots, by slot name: liquid, rendered like the body. */
export const emailSlotsSchema = z.record(slotNameSchema, z.string().max(100_000, 'must be at most 100,000 characters'));
export type EmailSlots = z.infer<typeof emailSlotsSchema>;

/** An email step's address: an address, or a liquid template that renders one (checked when rendered). */
const addressTemplateSchema = z
  .string({ error: 'must be an email address' })
  .trim()
  .min(1, 'must not be empty')
  .max(320, 'must be at most 320 characters')
  .refine((text) => text.includes('{{') || z.email().safeParse(text).success, 'must be an email address (or a liquid template that renders one)');
const addressTemplatesSchema = z.union([addressTemplateSchema, z.array(addressTemplateSchema).max(MAX_EMAIL_OVERRIDE_ADDRESSES, `must hold at most ${MAX_EMAIL_OVERRIDE_ADDRESSES} addresses`)], {
  error: 'must be an email address or an array of them',
});

/** What a step renders: its type and the content fields of that channel. */
export const stepTemplateSchema = z.strictObject({
  type: stepTypeSchema,
  name: z.string().optional(),
  subject: z.string().optional(),
  title: z.string().optional(),
  /** Hidden text shown after the subject in mail clients' lists (email). */
  preheader: z.string().optional(),
  senderName: z.string().optional(),
  /** An email step's Reply-To (liquid), over the brand's; a trigger's `overrides.email.replyTo` wins. */
  replyTo: addressTemplateSchema.optional(),
  /** An email step's Cc and Bcc (liquid, one address or a list), before the trigger's `overrides.email` ones. */
  cc: addressTemplatesSchema.optional(),
  bcc: addressTemplatesSchema.optional(),
  /** An email step's custom headers by name (values liquid); the trigger's `overrides.email.headers` win a clash. */
  headers: emailHeaderTemplatesSchema.optional(),
  /** The layout of an email step: a layout's identifier, or `null` for none; absent, the workflow's, the brand's or the default. */
  layoutId: z.string().min(1, 'must not be empty').nullable().optional(),
  content: z.union([z.string(), z.array(emailBlockSchema)]).optional(),
  /** An email step's body made by a React component registered with `createTidings({ emailComponents })`, by its name. */
  component: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
  /** The component's props: every text in them is rendered (liquid); a text that is one `{{ path }}` alone gives that value itself. */
  props: jsonObjectSchema.optional(),
  /** An email step's texts for its layout's named slots (`{{ footer }}`), by slot name. */
  slots: emailSlotsSchema.optional(),
  avatar: z.string().optional(),
  cta: messageCtaSchema.optional(),
  data: jsonObjectSchema.optional(),
  variables: z.array(templateVariableSchema).optional(),
});
export type StepTemplate = z.infer<typeof stepTemplateSchema>;

const stepFields = {
  _id: z.string().optional(),
  uuid: z.string().optional(),
  name: z.string().optional(),
  _templateId: z.string().optional(),
  active: z.boolean().default(true),
  shouldStopOnFail: z.boolean().default(false),
  template: stepTemplateSchema,
  filters: z.array(filterSchema).default([]),
  _parentId: z.string().optional(),
  metadata: z.union([digestMetadataSchema, delayScheduledMetadataSchema, throttleMetadataSchema, waitMetadataSchema]).optional(),
  replyCallback: z.strictObject({ active: z.boolean().optional(), url: z.string().optional() }).optional(),
  /**
   * A channel step's fallback: when the step had nowhere to go (no integration, no address) or every
   * integration failed for good, the same message goes out through this channel.
   */
  fallbackTo: channelSchema.optional(),
  /** An in-app step's messages expire this long after they are made. */
  ttl: ttlSchema.optional(),
  /** An `http` step's request and how its answer is taken. */
  http: httpStepSchema.optional(),
  /** A `branch` step's conditions and the steps each one chooses. */
  branch: branchStepSchema.optional(),
};

export const stepVariantSchema = z.strictObject(stepFields);
export type StepVariant = z.infer<typeof stepVariantSchema>;

export const stepSchema = z.strictObject({ ...stepFields, variants: z.array(stepVariantSchema).default([]) });
export type Step = z.infer<typeof stepSchema>;
export type StepInput = z.input<typeof stepSchema>;
