import { z } from 'zod';
import { beginIdempotencyKey } from '../../idempotency/begin-key.js';
import type { IdempotencyBegin, StoredResponse } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';

/** Longest idempotency key (Novu's limit). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const keySchema = z.string().min(1, 'must not be empty').max(MAX_IDEMPOTENCY_KEY_LENGTH, `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
const durationSchema = z.number().int().min(1).max(366 * 24 * 3_600_000);

export const idempotencyBeginSchema = z
  .object({
    key: keySchema,
    /** A hash of what the request asks: the same key with another fingerprint is another request. */
    fingerprint: z.string().min(1).max(1_024),
    /** How long a started request (whose process may have died) blocks the key. */
    inFlightMs: durationSchema,
    /** How long a key begun again after a release keeps the `since` of its first start. */
    keepMs: durationSchema,
  })
  .strict();

export const idempotencyCompleteSchema = z
  .object({
    key: keySchema,
    /** The response to replay to a request with the same key and fingerprint. */
    response: z.object({ status: z.number().int().min(100).max(599), body: z.string(), headers: z.record(z.string(), z.string()) }).strict(),
    /** How long the response is kept (and replayed) from now. */
    keepMs: durationSchema,
  })
  .strict();

/**
 * Idempotency keys of requests an app answers (an HTTP API's `Idempotency-Key`): a request begins its
 * key, then completes it with its response (replayed to a repeat) or releases it (a retry may run it
 * again). Records live in the storage, per environment, so this holds across restarts and processes.
 * Every instant is the engine's clock's.
 */
export function idempotencyApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  const after = (ms: number) => new Date(ctx.clock.now().getTime() + ms).toISOString();
  return {
    /**
     * Claims `key` for a request with this `fingerprint`, in one transaction. Exactly one of racing
     * callers gets `started` (with `since`, when the key's current use began); the others get
     * `in_flight` until it completes or `inFlightMs` passes, then `completed` with the stored response
     * until it expires. A key begun again after a release (or after its in-flight time ran out) is
     * `started` with the `since` of its first start, for `keepMs` from that start.
     */
    async begin(input: { key: string; fingerprint: string; inFlightMs: number; keepMs: number }): Promise<IdempotencyBegin> {
      const { key, fingerprint, inFlightMs, keepMs } = parseInput(idempotencyBeginSchema, input, 'idempotency begin');
      const now = ctx.clock.now().getTime();
      const at = (ms: number) => new Date(now + ms).toISOString();
      return beginIdempotencyKey(storage, env, key, fingerprint, { now: at(0), inFlightUntil: at(inFlightMs), keepUntil: at(keepMs) });
    },
    /** Stores the response of a started key, replayed to requests with the key for `keepMs` from now. */
    async complete(input: { key: string; response: StoredResponse; keepMs: number }): Promise<void> {
      const { key, response, keepMs } = parseInput(idempotencyCompleteSchema, input, 'idempotency complete');
      await storage.idempotency.complete(env, key, response, after(keepMs));
    },
    /** Frees a started key for a retry (its request failed in a way a retry may repeat); its `since` is kept. */
    async release(key: string): Promise<void> {
      await storage.idempotency.release(env, parseInput(keySchema, key, 'idempotency key'));
    },
    /** Deletes the environment's records that have expired by now; returns how many. */
    purgeExpired: (): Promise<number> => storage.idempotency.purgeExpired(env, ctx.now()),
  };
}
