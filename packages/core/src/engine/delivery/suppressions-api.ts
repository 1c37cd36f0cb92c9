import { normalAddress, suppressionChannelSchema, suppressionInputSchema, type Suppression, type SuppressionInput } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { pageLimit, pageOf, positionOf } from '../../util/page-cursor.js';

/** A page of the suppression list, and the cursor of the next one (null after the last). */
export interface SuppressionPage {
  readonly data: Suppression[];
  readonly nextCursor: string | null;
}

/**
 * The environment's suppression list: email addresses and phones that are not sent to. Hard bounces,
 * complaints and carriers' permanent failures add to it (see `providerWebhook`); apps add and remove.
 */
export function suppressionsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  const channelOf = (channel: unknown) => parseInput(suppressionChannelSchema, channel, 'channel') as Suppression['channel'];
  return {
    /** Puts an address on the list (by hand: `reason: 'manual'`); an address already there keeps its entry, which is returned. */
    async add(input: SuppressionInput): Promise<Suppression> {
      const { channel, address, detail } = parseInput(suppressionInputSchema, input, 'suppression');
      const entry: Suppression = { channel, address: normalAddress(channel, address), reason: 'manual', at: ctx.now(), ...(detail !== undefined && { detail }) };
      return storage.transaction(async (tx) => {
        await tx.suppressions.add(env, [entry]);
        const [stored] = await tx.suppressions.find(env, channel, [entry.address]);
        return stored ?? entry;
      });
    },
    /** Takes an address off the list, so it is sent to again; false when it was not on it. */
    async remove(channel: Suppression['channel'], address: string): Promise<boolean> {
      const checked = channelOf(channel);
      return storage.suppressions.remove(env, checked, normalAddress(checked, address));
    },
    /** Whether the address is on the list, with its entry. */
    async get(channel: Suppression['channel'], address: string): Promise<Suppression | null> {
      const checked = channelOf(channel);
      const [found] = await storage.suppressions.find(env, checked, [normalAddress(checked, address)]);
      return found ?? null;
    },
    /** The list, newest first, `limit` (1–100, default 50) at a time. */
    async list(query: { channel?: Suppression['channel']; limit?: number; cursor?: string } = {}): Promise<SuppressionPage> {
      const limit = pageLimit(query.limit, 'suppression list');
      const channel = query.channel === undefined ? undefined : channelOf(query.channel);
      const after = query.cursor === undefined ? undefined : positionOf(query.cursor, 'suppression list');
      const rows = await storage.suppressions.list(env, { limit: limit + 1, ...(channel && { channel }), ...(after && { after: { at: after.at, address: after.id } }) });
      return pageOf(rows, limit, (entry) => ({ at: entry.at, id: entry.address }));
    },
  };
}
