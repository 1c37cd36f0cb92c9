import type { ChannelSettings, ChannelSettingsPatch, Subscriber } from '../schemas/index.js';

const sameSetting = (a: Pick<ChannelSettings, 'providerId' | 'integrationIdentifier'>, b: Pick<ChannelSettings, 'providerId' | 'integrationIdentifier'>) =>
  a.providerId === b.providerId && a.integrationIdentifier === b.integrationIdentifier;

/**
 * The channel setting to store when `input` is appended to what the subscriber has: its device
 * tokens join the stored ones (each once, the stored first); its other credentials replace theirs.
 */
export function appendedSetting(subscriber: Subscriber, input: ChannelSettingsPatch): ChannelSettingsPatch {
  const stored = subscriber.channels.find((c) => sameSetting(c, input))?.credentials.deviceTokens ?? [];
  const added = input.credentials.deviceTokens;
  if (!added) return input;
  return { ...input, credentials: { ...input.credentials, deviceTokens: [...new Set([...stored, ...added])] } };
}

/** The subscriber without its settings for `providerId` (every integration's, or one's); null when it has none. */
export function withoutChannelSettings(subscriber: Subscriber, providerId: string, at: string, integrationIdentifier?: string): Subscriber | null {
  const channels = subscriber.channels.filter((c) => c.providerId !== providerId || (integrationIdentifier !== undefined && c.integrationIdentifier !== integrationIdentifier));
  return channels.length === subscriber.channels.length ? null : { ...subscriber, channels, updatedAt: at };
}
