import type { ChannelSettings, Subscriber, SubscriberPatch } from '../schemas/index.js';

const PROFILE_KEYS = ['firstName', 'lastName', 'email', 'phone', 'avatar', 'locale', 'timezone', 'data', 'isOnline', 'lastOnlineAt'] as const;

/**
 * The subscriber after applying `patch`: members the patch leaves undefined keep their stored value,
 * `data` is replaced whole, channel settings are merged by (providerId, integrationIdentifier).
 * Storage adapters call this inside their transaction so every backend merges the same way.
 */
export function mergeSubscriber(
  existing: Subscriber | null,
  patch: SubscriberPatch,
  created: { _id: string; now: string; environmentId: string; organizationId: string },
): Subscriber {
  const base: Subscriber = existing ?? {
    _id: created._id,
    subscriberId: patch.subscriberId,
    firstName: null,
    lastName: null,
    email: null,
    phone: null,
    avatar: null,
    locale: null,
    timezone: null,
    data: null,
    channels: [],
    isOnline: null,
    lastOnlineAt: null,
    _organizationId: created.organizationId,
    _environmentId: created.environmentId,
    deleted: false,
    createdAt: created.now,
    updatedAt: created.now,
  };
  const next: Subscriber = { ...base, updatedAt: created.now };
  for (const key of PROFILE_KEYS) {
    const value = patch[key];
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  if (patch.channels) next.channels = mergeChannels(base.channels, patch.channels);
  return next;
}

function mergeChannels(stored: readonly ChannelSettings[], incoming: NonNullable<SubscriberPatch['channels']>): ChannelSettings[] {
  const result = [...stored];
  for (const channel of incoming) {
    const at = result.findIndex(
      (c) => c.providerId === channel.providerId && c.integrationIdentifier === channel.integrationIdentifier,
    );
    const previous = at >= 0 ? result[at] : undefined;
    const merged: ChannelSettings = {
      providerId: channel.providerId,
      ...(channel.integrationIdentifier !== undefined && { integrationIdentifier: channel.integrationIdentifier }),
      credentials: { ...previous?.credentials, ...channel.credentials },
      _integrationId: channel._integrationId ?? previous?._integrationId ?? '',
    };
    if (at >= 0) result[at] = merged;
    else result.push(merged);
  }
  return result;
}
