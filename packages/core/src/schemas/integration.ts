import { z } from 'zod';
import { sendRateSchema } from './frequency.js';
import { idSchema } from './limits.js';
import { channelSchema, isoInstantSchema } from './enums.js';
import { filterSchema } from './filter.js';

const STRING_CREDENTIALS = [
  'apiKey', 'user', 'secretKey', 'domain', 'password', 'host', 'region', 'accountSid', 'messageProfileId',
  'token', 'from', 'senderName', 'projectName', 'applicationId', 'clientId', 'baseUrl', 'webhookUrl', 'redirectUrl',
  'serviceAccount', 'ipPoolName', 'apiKeyRequestHeader', 'secretKeyRequestHeader', 'idPath', 'datePath', 'apiToken',
  'authenticationTokenKey', 'instanceId', 'alertUid', 'title', 'imageUrl', 'state', 'externalLink', 'channelId',
  'phoneNumberIdentification', 'accessKey', 'appSid', 'senderId', 'AppIOBaseUrl',
] as const;
const BOOLEAN_CREDENTIALS = ['secure', 'requireTls', 'ignoreTls', 'hmac', 'authenticateByToken'] as const;

/**
 * A flag given as a boolean or as the text `"true"` / `"false"` (forms and environment variables give
 * text, Novu's dashboard booleans): stored as a boolean.
 */
const flagSchema = z
  .union([z.boolean(), z.enum(['true', 'false'])], { error: 'must be true or false (a boolean, or the text "true" or "false")' })
  .transform((value) => value === true || value === 'true');

/**
 * A port given as a whole number or as its digits (Novu stores the text): stored as the text; empty
 * text (a form's blank field) is no port.
 */
const portSchema = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const text = String(value).trim();
    if (text === '') return undefined;
    if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65_535) {
      ctx.addIssue({ code: 'custom', message: 'must be a port number from 1 to 65535 (a number, or its digits as text)' });
      return z.NEVER;
    }
    return String(Number(text));
  });

/**
 * How many provider calls of one integration an engine process makes at once when its `maxInFlight`
 * is unset: below the default `deliveryConcurrency` (200), so one slow provider account never holds
 * every lane.
 */
export const DEFAULT_MAX_IN_FLIGHT = 150;

const maxInFlightSchema = z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000, 'must be at most 1000');

export const credentialsSchema = z.object({
  ...(Object.fromEntries(STRING_CREDENTIALS.map((k) => [k, z.string().optional()])) as {
    [K in (typeof STRING_CREDENTIALS)[number]]: z.ZodOptional<z.ZodString>;
  }),
  ...(Object.fromEntries(BOOLEAN_CREDENTIALS.map((k) => [k, flagSchema.optional()])) as {
    [K in (typeof BOOLEAN_CREDENTIALS)[number]]: z.ZodOptional<typeof flagSchema>;
  }),
  port: portSchema.optional(),
  tlsOptions: z.record(z.string(), z.unknown()).optional(),
});
export type Credentials = z.output<typeof credentialsSchema>;
/** Credentials as given: `port` a number or its digits, flags booleans or `"true"` / `"false"`. */
export type CredentialsInput = z.input<typeof credentialsSchema>;

const integrationFields = {
  _id: z.string().optional(),
  name: z.string().trim().min(1, 'must not be empty'),
  identifier: idSchema.optional(),
  providerId: z.string().trim().min(1, 'must not be empty'),
  channel: channelSchema,
  credentials: credentialsSchema.default({}),
  configurations: z
    .object({ inboundWebhookEnabled: z.boolean().optional(), inboundWebhookSigningKey: z.string().optional() })
    .optional(),
  active: z.boolean().default(true),
  primary: z.boolean().default(false),
  conditions: z.array(filterSchema).default([]),
  /** Tidings only: at most this many sends in any window of `seconds`, across every process of the database; sends past it wait. */
  rateLimit: sendRateSchema.optional(),
  /** Tidings only: at most this many of its provider calls at once in one engine process; unset, DEFAULT_MAX_IN_FLIGHT. */
  maxInFlight: maxInFlightSchema.optional(),
};

/** `name` may be left out, as Novu allows: it then defaults to the providerId. */
export const integrationInputSchema = z.object({ ...integrationFields, name: integrationFields.name.optional() });
export type IntegrationInput = z.input<typeof integrationInputSchema>;

/** A change to a stored integration: the members given replace the stored ones (`credentials` whole). */
export const integrationPatchSchema = z
  .object({
    name: integrationFields.name,
    identifier: idSchema,
    credentials: credentialsSchema,
    configurations: integrationFields.configurations,
    active: z.boolean(),
    primary: z.boolean(),
    conditions: z.array(filterSchema),
    /** `null` removes the rate limit. */
    rateLimit: sendRateSchema.nullable(),
    /** `null` returns it to DEFAULT_MAX_IN_FLIGHT. */
    maxInFlight: maxInFlightSchema.nullable(),
  })
  .partial();
export type IntegrationPatch = z.input<typeof integrationPatchSchema>;

export const integrationSchema = z.object({
  ...integrationFields,
  _id: z.string(),
  identifier: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  deleted: z.boolean(),
  deletedAt: z.string().optional(),
  deletedBy: z.string().optional(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
});
export type Integration = z.infer<typeof integrationSchema>;
