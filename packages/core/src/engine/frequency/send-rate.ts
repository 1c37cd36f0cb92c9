import { takeWindowSlot } from './window-slot.js';
import type { Integration } from '../../schemas/index.js';
import type { EngineContext } from '../context.js';
import { scheduleSweep } from '../retention/sweep.js';

/** A send through a rate-limited integration: it may go now, or the step waits until the window has room. */
export type RateSlot = { readonly ok: true } | { readonly ok: false; readonly until: Date; readonly reason: string };

const rateKey = (integration: Integration) => `rate:${integration._id}`;

/**
 * Takes a slot of the integration's send rate in a transaction of its own, just before the provider is
 * called, so every process of the database shares one count. A send that finds the window full takes
 * nothing and waits; a slot taken for a send that then fails stays taken, as the provider counted it too.
 */
export async function takeSendSlot(ctx: EngineContext, integration: Integration, sendId: string, now: Date): Promise<RateSlot> {
  const rate = integration.rateLimit;
  if (!rate) return { ok: true };
  return ctx.storage.transaction(async (tx) => {
    const { decision, recordedUntil } = await takeWindowSlot(tx, ctx.env, { key: rateKey(integration), id: sendId, limit: rate.messages, lengthMs: rate.seconds * 1_000 }, now);
    if (!recordedUntil) return { ok: false, until: decision.freesAt!, reason: `"${integration.identifier}" sent ${rate.messages} in the last ${rate.seconds} s, its rate limit; waits until ${decision.freesAt!.toISOString()}` };
    await scheduleSweep(ctx, tx, recordedUntil);
    return { ok: true };
  });
}
