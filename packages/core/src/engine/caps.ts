import { z } from 'zod';
import { capCounterKey, capsDecision, capsFor, type CappedWorkflow } from '../frequency/caps.js';
import { windowMs } from '../frequency/sliding-window.js';
import { TidingsError } from '../errors.js';
import { capId, capsSchema, type Cap, type CapInput, type Channel } from '../schemas/index.js';
import type { WindowHit } from '../storage.js';
import { parseInput } from '../validation.js';
import type { EngineContext } from './context.js';

/** How long a process trusts the stored caps it read; a change made in this process is seen at once. */
const CAPS_TTL_MS = 1_000;
const SETTING = 'caps';
const cache = new WeakMap<EngineContext, { at: number; caps: Cap[] }>();
/** Caps as `caps.set` takes them, so a refusal names `caps[i]`. */
const capsInputSchema = z.object({ caps: capsSchema });

/** The caps set over the API (stored, shared by every process), as stored. */
async function storedCaps(ctx: EngineContext): Promise<Cap[]> {
  const value = await ctx.storage.settings.get(ctx.env, SETTING);
  return value === null ? [] : capsSchema.parse(value);
}

/** Every cap in force: those given to `createTidings`, then those set over the API. */
export async function capsInForce(ctx: EngineContext): Promise<Cap[]> {
  const now = Date.now();
  const kept = cache.get(ctx);
  if (kept && now - kept.at < CAPS_TTL_MS) return kept.caps;
  const caps = [...ctx.options.caps, ...(await storedCaps(ctx))];
  cache.set(ctx, { at: now, caps });
  return caps;
}

/** Whether any cap counts this workflow's in-app messages: their walks then go through jobs, where caps are applied. */
export const capsInApp = (caps: readonly Cap[], workflow: CappedWorkflow): boolean => capsFor(caps, 'in_app', workflow).length > 0;

/** The caps of the API: those set in code are read-only, those set here are stored for every process. */
export function capsApi(ctx: EngineContext) {
  return {
    /** The caps in force: `code` from `createTidings({ caps })`, `stored` set with `caps.set`. */
    async get(): Promise<{ code: Cap[]; stored: Cap[] }> {
      return { code: [...ctx.options.caps], stored: await storedCaps(ctx) };
    },
    /** Replaces the stored caps (an empty list removes them); a cap whose id is one of the code caps' is refused. */
    async set(caps: readonly CapInput[]): Promise<Cap[]> {
      const { caps: parsed } = parseInput(capsInputSchema, { caps }, 'caps');
      const codeIds = new Set(ctx.options.caps.map(capId));
      const clash = parsed.findIndex((cap) => codeIds.has(capId(cap)));
      if (clash >= 0) {
        const message = `the cap id "${capId(parsed[clash]!)}" is a cap given to createTidings; give this one another id`;
        throw new TidingsError('validation_failed', `Invalid caps: caps[${clash}].id: ${message}`, { issues: [{ path: `caps[${clash}].id`, message }] });
      }
      await ctx.storage.settings.put(ctx.env, SETTING, parsed);
      cache.delete(ctx);
      return parsed;
    },
  };
}

/** The hits of every cap for the batch's subscribers, read once; the batch adds to it as it sends. */
export type CapLedger = Map<string, string[]>;

export async function loadCapLedger(ctx: EngineContext, caps: readonly Cap[], subscriberIds: readonly string[], now: Date): Promise<CapLedger> {
  if (caps.length === 0 || subscriberIds.length === 0) return new Map();
  const longest = Math.max(...caps.map((cap) => windowMs(cap.per)));
  const keys = caps.flatMap((cap) => subscriberIds.map((id) => capCounterKey(cap, id)));
  return ctx.storage.frequency.recent(ctx.env, keys, new Date(now.getTime() - longest).toISOString());
}

/** What one send does to the caps: go (with the hits it counts once sent), not go, or wait. */
export type CapCheck = { readonly kind: 'send'; readonly hits: WindowHit[] } | { readonly kind: 'skip'; readonly reason: string } | { readonly kind: 'defer'; readonly until: Date; readonly reason: string };

/**
 * The caps over one walk's sends. A send that may go is counted in the ledger at once, so the batch's
 * other sends to the subscriber see it while it is under way; `release` takes that count back when it
 * did not go after all (a failure, no address, a wait for the send rate), as only sent messages count.
 * Its hits are recorded by the commit when it was sent.
 */
export function capGate(caps: readonly Cap[], ledger: CapLedger, workflow: CappedWorkflow, subscriberId: string, now: Date) {
  const at = now.toISOString();
  /** The counter keys each send under way counted in the ledger, by channel and message id. */
  const reserved = new Map<string, string[]>();
  const check = (channel: Channel, messageId: string): CapCheck => {
    const counted = capsFor(caps, channel, workflow);
    if (counted.length === 0) return { kind: 'send', hits: [] };
    const decision = capsDecision(counted, (cap) => ledger.get(capCounterKey(cap, subscriberId)) ?? [], now);
    if (decision.kind !== 'send') return decision;
    const keys = counted.map((cap) => capCounterKey(cap, subscriberId));
    for (const key of keys) ledger.set(key, [...(ledger.get(key) ?? []), at]);
    reserved.set(`${channel}\u0000${messageId}`, keys);
    return { kind: 'send', hits: keys.map((key, i) => ({ key, id: messageId, at, expiresAt: new Date(now.getTime() + windowMs(counted[i]!.per)).toISOString() })) };
  };
  /** The send of `messageId` on `channel` did not go: its count leaves the ledger. */
  const release = (channel: Channel, messageId: string): void => {
    const keys = reserved.get(`${channel}\u0000${messageId}`);
    if (!keys) return;
    reserved.delete(`${channel}\u0000${messageId}`);
    for (const key of keys) {
      const hits = [...(ledger.get(key) ?? [])];
      const i = hits.lastIndexOf(at);
      if (i >= 0) hits.splice(i, 1);
      ledger.set(key, hits);
    }
  };
  return Object.assign(check, { release });
}
