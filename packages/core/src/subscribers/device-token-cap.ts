import { TidingsError } from '../errors.js';
import { MAX_DEVICE_TOKENS_PER_PROVIDER, type ChannelSettings, type ChannelSettingsPatch } from '../schemas/index.js';

/** A provider whose device tokens a change would take past the cap, and how many it would hold. */
export interface PastCap {
  readonly providerId: string;
  readonly count: number;
}

function countByProvider(channels: readonly Pick<ChannelSettings, 'providerId' | 'credentials'>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of channels) counts.set(c.providerId, (counts.get(c.providerId) ?? 0) + (c.credentials.deviceTokens?.length ?? 0));
  return counts;
}

/**
 * The providers `after` holds more device tokens of than MAX_DEVICE_TOKENS_PER_PROVIDER, counted over
 * all the settings of each (one per integration identifier), and more than `before` held: a change
 * never takes a subscriber past the cap, while one stored past it before the cap may still shrink.
 */
export function providersPastCap(before: readonly ChannelSettings[], after: readonly ChannelSettings[]): PastCap[] {
  const was = countByProvider(before);
  return [...countByProvider(after)]
    .filter(([providerId, count]) => count > MAX_DEVICE_TOKENS_PER_PROVIDER && count > (was.get(providerId) ?? 0))
    .map(([providerId, count]) => ({ providerId, count }));
}

/** How a refusal names the input: what it is, and the field of the patch's channel setting at `index`. */
export interface CapRefusal {
  /** What the input is, as `parseInput` names it (`subscriber`, `channel credentials`). */
  readonly what: string;
  /** @default `channels[${index}].credentials.deviceTokens` */
  readonly field?: (index: number) => string;
}

/** The validation_failed error for a change that would take providers past the cap, naming the fields that carried their tokens. */
export function pastCapError(past: readonly PastCap[], patch: readonly ChannelSettingsPatch[], refusal: CapRefusal): TidingsError {
  const field = refusal.field ?? ((index: number) => `channels[${index}].credentials.deviceTokens`);
  const issues = past.map(({ providerId, count }) => {
    const at = patch.findIndex((c) => c.providerId === providerId && c.credentials.deviceTokens !== undefined);
    return {
      path: field(Math.max(0, at)),
      message: `would give the subscriber ${count} ${providerId} device tokens; at most ${MAX_DEVICE_TOKENS_PER_PROVIDER} per subscriber and provider (replacing the tokens, rather than adding to them, drops the old ones)`,
    };
  });
  return new TidingsError('validation_failed', `Invalid ${refusal.what}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
}
