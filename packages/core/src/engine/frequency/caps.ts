import { z } from 'zod';
import { capCounterKey, capsDecision, capsFor, type CappedWorkflow } from '../../frequency/caps.js';
import { windowMs } from '../../frequency/sliding-window.js';
import { TidingsError } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { capId, capsSchema, type Cap, type CapInput, type Channel } from '../../schemas/index.js';
import type { WindowHit } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

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
      await ctx.storage.transaction(async (tx) => {
        await tx.settings.put(ctx.env, SETTING, parsed);
        await recordAudit(tx.records, ctx.env, ctx.clock.now(), [{ kind: 'settings', action: 'updated', target: 'caps', fields: ['caps'] }]);
      });
      cache.delete(ctx);
      return parsed;
    },
  };
}

/** What one send does to the caps: go (with the hits it counts once sent), not go, or wait. */
export type CapCheck = { readonly kind: 'send'; readonly hits: WindowHit[] } | { readonly kind: 'skip'; readonly reason: string } | { readonly kind: 'defer'; readonly until: Date; readonly reason: string };

/**
 * Takes one send's slot of every cap in `counted` in a transaction of its own, just before the
 * provider is called, so every process of the database shares one count (as a send rate does): all of
 * them are recorded when every cap has room, none otherwise. A slot is keyed by the message, so the
 * same send taken again counts once.
 */
async function takeCapSlots(ctx: EngineContext, counted: readonly Cap[], subscriberId: string, messageId: string, now: Date, givenBack: readonly SlotRef[]): Promise<CapCheck> {
  const keys = counted.map((cap) => capCounterKey(cap, subscriberId));
  const longest = Math.max(...counted.map((cap) => windowMs(cap.per)));
  return ctx.storage.transaction(async (tx) => {
    const at = now.toISOString();
    // A send taken again (its run was retried after the slot was taken) does not count against itself,
    // nor do the walk's sends that did not go.
    await tx.frequency.forget(ctx.env, [...givenBack, ...keys.map((key) => ({ key, id: messageId }))]);
    await tx.frequency.prune(ctx.env, keys, at);
    const recent = await tx.frequency.recent(ctx.env, keys, new Date(now.getTime() - longest).toISOString());
    const decision = capsDecision(counted, (cap) => recent.get(capCounterKey(cap, subscriberId)) ?? [], now);
    if (decision.kind !== 'send') return decision;
    const hits = keys.map((key, i) => ({ key, id: messageId, at, expiresAt: new Date(now.getTime() + windowMs(counted[i]!.per)).toISOString() }));
    await tx.frequency.record(ctx.env, hits);
    return { kind: 'send', hits };
  });
}

/** A counted send's slot of one cap. */
export interface SlotRef {
  readonly key: string;
  readonly id: string;
}

/** A walk's sends under the caps: whether each may go, and the slots of those that did not go after all. */
export type CapGate = ((channel: Channel, messageId: string) => Promise<CapCheck>) & {
  release(channel: Channel, messageId: string): void;
  givenBack(): readonly SlotRef[];
};

/** The gate of a walk no cap counts (none in force, or a critical workflow): every send goes, and nothing is reserved. */
const UNCAPPED: CapGate = Object.assign(async (): Promise<CapCheck> => ({ kind: 'send', hits: [] }), {
  release: (): void => undefined,
  givenBack: (): readonly SlotRef[] => [],
});

/**
 * The caps over one walk's sends: a send that may go takes its slots in the storage first
 * (`takeCapSlots`), so two sends of one batch, or of two processes, never both take the last one.
 * `release` gives back the slots of a send that did not go after all (a failure, no address, a wait
 * for the send rate), as only sent messages count: the batch's next reservation or its commit
 * (`givenBack`, the walk's own; deleting a slot twice changes nothing) deletes them, so nothing is
 * written outside those two.
 */
export function capGate(ctx: EngineContext, caps: readonly Cap[], workflow: CappedWorkflow, subscriberId: string, now: Date, batchGivenBack: SlotRef[]): CapGate {
  if (caps.length === 0 || workflow.critical) return UNCAPPED;
  /** The counter keys each send under way took, by channel and message id. */
  const reserved = new Map<string, string[]>();
  const givenBack: SlotRef[] = [];
  const check = async (channel: Channel, messageId: string): Promise<CapCheck> => {
    const counted = capsFor(caps, channel, workflow);
    if (counted.length === 0) return { kind: 'send', hits: [] };
    // Slots any walk of the batch gave back are deleted by the next reservation, so later sends of the batch have their room.
    const pending = batchGivenBack.splice(0);
    let taken: CapCheck;
    try {
      taken = await takeCapSlots(ctx, counted, subscriberId, messageId, now, pending);
    } catch (error) {
      batchGivenBack.push(...pending);
      throw error;
    }
    if (taken.kind === 'send') reserved.set(`${channel}\u0000${messageId}`, taken.hits.map((hit) => hit.key));
    return taken;
  };
  /** The send of `messageId` on `channel` did not go: its slots are to be given back. */
  const release = (channel: Channel, messageId: string): void => {
    const keys = reserved.get(`${channel}\u0000${messageId}`);
    if (!keys) return;
    reserved.delete(`${channel}\u0000${messageId}`);
    const slots = keys.map((key) => ({ key, id: messageId }));
    givenBack.push(...slots);
    batchGivenBack.push(...slots);
  };
  return Object.assign(check, { release, givenBack: (): readonly SlotRef[] => givenBack });
}
