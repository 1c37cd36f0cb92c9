import type { Subscriber } from '../schemas/index.js';

/** Device tokens a push service called gone for good, found while sending through one integration. */
export interface DeadDeviceTokens {
  readonly providerId: string;
  readonly integrationIdentifier: string;
  readonly tokens: readonly string[];
}

/**
 * The subscriber without the dead device tokens, in every channel setting the send could have read
 * them from (the integration's provider, unnamed or naming that integration); null when none of them
 * is there any more (removed already, or replaced by the app meanwhile).
 */
export function withoutDeviceTokens(subscriber: Subscriber, dead: readonly DeadDeviceTokens[], at: string): Subscriber | null {
  let changed = false;
  const channels = subscriber.channels.map((setting) => {
    const gone = new Set(
      dead
        .filter((d) => d.providerId === setting.providerId && (setting.integrationIdentifier === undefined || setting.integrationIdentifier === d.integrationIdentifier))
        .flatMap((d) => d.tokens),
    );
    const tokens = setting.credentials.deviceTokens;
    if (gone.size === 0 || !tokens?.some((t) => gone.has(t))) return setting;
    changed = true;
    return { ...setting, credentials: { ...setting.credentials, deviceTokens: tokens.filter((t) => !gone.has(t)) } };
  });
  return changed ? { ...subscriber, channels, updatedAt: at } : null;
}
