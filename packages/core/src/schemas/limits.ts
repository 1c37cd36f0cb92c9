import { z } from 'zod';

/** Longest id or key (subscriberId, topic key, tenant and workflow identifiers, transactionId …). */
export const MAX_ID_LENGTH = 256;
/** Most direct recipients (ids and subscriber objects in `to`) of one event; larger audiences go through topics. */
export const MAX_RECIPIENTS_PER_EVENT = 1_000;
/** Most direct recipients of one bulk call, over all its events. */
export const MAX_RECIPIENTS_PER_CALL = 10_000;
/** Deepest nesting of objects and arrays in any input (payloads, data, overrides). */
export const MAX_INPUT_DEPTH = 32;

/** A required id or key: trimmed, not empty, at most MAX_ID_LENGTH characters. */
export const idSchema = z.string().trim().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
