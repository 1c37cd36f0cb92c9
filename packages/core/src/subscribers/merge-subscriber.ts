import type { ChannelSettings, Subscriber, SubscriberPatch } from '../schemas/index.js';
import { pastCapError, providersPastCap, type CapRefusal } from './device-token-cap.js';

const PROFILE_KEYS = ['firstName', 'lastName', 'email', 'phone', 'avatar', 'locale', 'timezone', 'data', 'isOnline', 'lastOnlineAt'] as const;

/**
 * What to do with channel settings that would give the subscriber more device tokens of one provider
 * than MAX_DEVICE_TOKENS_PER_PROVIDER: refuse the change (a validation_failed naming the field,
 * thrown before anything is written), or, when absent, keep that provider's stored settings as they
 * are and apply the rest of the patch (a trigger's `to`, whose subscribers are written in a
 * transaction shared with other events that one event's refusal must not fail).
 */
export interface MergeOptions {
  readonly refuseOverCap?: CapRefusal;
}

/**
 * The subscriber after applying `patch`: members the patch leaves undefined keep their stored value,
 * `data` is replaced whole, channel settings are merged by (providerId, integrationIdentifier), and
 * no provider's device tokens go past their cap (see MergeOptions).
 * Storage adapters call this inside their transaction so every backend merges the same way.
 */
export function mergeSubscriber(
  existing: Subscriber | null,
  patch: SubscriberPatch,
  created: { _id: string; now: string; environmentId: string; organizationId: string },
  options: MergeOptions = {},
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
  if (patch.channels) {
    const merged = mergeChannels(base.channels, patch.channels);
    const past = providersPastCap(base.channels, merged);
    if (past.length === 0) next.channels = merged;
    else if (options.refuseOverCap) throw pastCapError(past, patch.channels, options.refuseOverCap);
    else next.channels = mergeChannels(base.channels, patch.channels.filter((c) => !past.some((p) => p.providerId === c.providerId)));
  }
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
