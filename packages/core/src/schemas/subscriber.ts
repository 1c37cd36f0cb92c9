import { z } from 'zod';
import { MAX_DEVICE_TOKEN_LENGTH, MAX_DEVICE_TOKENS_PER_PROVIDER, idSchema } from './limits.js';
import { isValidTimeZone } from '../schedule/time-zone.js';
import { channelProviderIdSchema, isoInstantSchema, jsonObjectSchema } from './enums.js';

export const channelCredentialsSchema = z.strictObject({
  webhookUrl: z.string().optional(),
  channel: z.string().optional(),
  deviceTokens: z
    .array(z.string().max(MAX_DEVICE_TOKEN_LENGTH, `must be at most ${MAX_DEVICE_TOKEN_LENGTH} characters`))
    .max(MAX_DEVICE_TOKENS_PER_PROVIDER, `must hold at most ${MAX_DEVICE_TOKENS_PER_PROVIDER} device tokens (the most one subscriber keeps for one provider)`)
    .optional(),
  alertUid: z.string().optional(),
  title: z.string().optional(),
  imageUrl: z.string().optional(),
  state: z.string().optional(),
  externalUrl: z.string().optional(),
});
export type ChannelCredentials = z.infer<typeof channelCredentialsSchema>;

export const channelSettingsInputSchema = z.strictObject({
  providerId: channelProviderIdSchema,
  integrationIdentifier: z.string().optional(),
  credentials: channelCredentialsSchema.default({}),
  _integrationId: z.string().optional(),
});

/** A subscriber's credentials for one chat or push provider, as a caller gives them. */
export type ChannelSettingsInput = z.input<typeof channelSettingsInputSchema>;
export type ChannelSettingsPatch = z.output<typeof channelSettingsInputSchema>;

export const channelSettingsSchema = channelSettingsInputSchema.extend({ _integrationId: z.string() });
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;

export const timeZoneSchema = z.string().refine(isValidTimeZone, { message: 'must be an IANA time zone such as "Europe/Paris"' });

const nullableText = z.string().nullable().optional();

/** The members the server makes for a subscriber. */
const serverMadeMembers = {
  _id: z.string(),
  _organizationId: z.string(),
  _environmentId: z.string(),
  deleted: z.boolean(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
};

/**
 * What a caller gives to create or update a subscriber: only `subscriberId` is required. A member it
 * does not know is refused; the members the server makes (`_id`, dates, …) are accepted and ignored,
 * so a stored subscriber saves again as it is.
 */
export const subscriberInputSchema = z.strictObject({
  subscriberId: idSchema,
  firstName: nullableText,
  lastName: nullableText,
  email: nullableText,
  phone: nullableText,
  avatar: nullableText,
  locale: nullableText,
  timezone: timeZoneSchema.nullable().optional(),
  data: jsonObjectSchema.nullable().optional(),
  channels: z.array(channelSettingsInputSchema).optional(),
  isOnline: z.boolean().nullable().optional(),
  lastOnlineAt: z.string().nullable().optional(),
  ...z.object(serverMadeMembers).partial().shape,
});
export type SubscriberInput = z.input<typeof subscriberInputSchema>;
export type SubscriberPatch = z.output<typeof subscriberInputSchema>;

export const subscriberSchema = z.object({
  ...serverMadeMembers,
  subscriberId: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  avatar: z.string().nullable(),
  locale: z.string().nullable(),
  timezone: z.string().nullable(),
  data: jsonObjectSchema.nullable(),
  channels: z.array(channelSettingsSchema),
  isOnline: z.boolean().nullable(),
  lastOnlineAt: z.string().nullable(),
});
export type Subscriber = z.infer<typeof subscriberSchema>;
