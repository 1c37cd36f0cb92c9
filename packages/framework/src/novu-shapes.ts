import type { Channel, JsonObject, Subscriber } from '@tidings/core';
import type { PreparedPayload } from '@tidings/core/internal';
import type { ChannelPreferences } from '@tidings/core/schemas';
import { check, type Schema } from './schema.js';

const CHANNELS = ['in_app', 'email', 'sms', 'chat', 'push'] as const satisfies readonly Channel[];

/** Novu's workflow `preferences`: all channels, and each channel under the name given to `channelSettingsOf`. */
export interface NovuPreferences {
  all?: { enabled?: boolean; readOnly?: boolean };
  channels?: Partial<Record<string, { enabled?: boolean } | undefined>>;
}

/**
 * Novu's `preferences` as the template's channel settings: a channel (or all) `enabled: false` is off
 * until the subscriber turns it on. `key` names a channel as the preferences do (`inApp` in a
 * `workflow()` option, `in_app` once @novu/framework discovered it).
 */
export function channelSettingsOf(preferences: NovuPreferences | undefined, key: (channel: (typeof CHANNELS)[number]) => string): ChannelPreferences {
  const settings: ChannelPreferences = {};
  const all = preferences?.all?.enabled;
  for (const channel of CHANNELS) {
    const enabled = preferences?.channels?.[key(channel)]?.enabled ?? all;
    if (enabled !== undefined) settings[channel] = enabled;
  }
  return settings;
}

/** The subscriber in @novu/framework's shape. */
export const frameworkSubscriber = (s: Subscriber) => ({
  subscriberId: s.subscriberId,
  firstName: s.firstName ?? null,
  lastName: s.lastName ?? null,
  email: s.email ?? null,
  phone: s.phone ?? null,
  avatar: s.avatar ?? null,
  locale: s.locale ?? null,
  data: s.data ?? null,
});

/** A trigger's payload checked against the workflow's schema, as @novu/framework checks it: defaults applied, each refusal naming its field. */
export async function checkedPayload(schema: Schema, payload: unknown): Promise<PreparedPayload> {
  const checked = await check(schema, payload, 'payload');
  return checked.ok ? { ok: true, payload: checked.data as JsonObject } : { ok: false, errors: checked.issues.map((i) => `${i.path}: ${i.message}`) };
}
