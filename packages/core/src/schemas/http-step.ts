import { z } from 'zod';
import { jsonObjectSchema } from './enums.js';

export const HTTP_STEP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Longest an HTTP step waits for its answer, and its default (milliseconds). */
export const HTTP_STEP_MAX_TIMEOUT_MS = 30_000;
export const HTTP_STEP_DEFAULT_TIMEOUT_MS = 10_000;

/** A JSON Schema that zod can build a validator from; anything else is refused when the workflow is saved. */
const responseSchemaSchema = jsonObjectSchema.refine((schema) => {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return true;
  } catch {
    return false;
  }
}, 'must be a JSON Schema (draft 2020-12 or 7) that zod can read');

/**
 * An `http` step's request (every text is liquid, rendered like a channel step's templates) and how
 * its answer is taken: the answer's JSON fields become `steps.<stepId>.*` for the steps after it.
 */
export const httpStepSchema = z.strictObject({
  /** @default 'GET' */
  method: z.enum(HTTP_STEP_METHODS).default('GET'),
  /** An http(s) URL (liquid); private addresses are refused unless the transport's `network.allow` lists them. */
  url: z.string().trim().min(1, 'must not be empty').max(2048, 'must be at most 2,048 characters'),
  /** Request headers by name (values liquid). Their values never reach `explain`. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name'), z.string().max(8192, 'must be at most 8,192 characters')).optional(),
  /** A JSON body (every text in it rendered) or a text body (rendered). */
  body: z.union([jsonObjectSchema, z.string().max(100_000, 'must be at most 100,000 characters')]).optional(),
  /** A JSON Schema the answer's JSON must match; a mismatch is a final failure of the step. */
  responseSchema: responseSchemaSchema.optional(),
  /** Milliseconds the answer may take. @default 10000 */
  timeout: z.number().int().min(100, 'must be at least 100 (milliseconds)').max(HTTP_STEP_MAX_TIMEOUT_MS, `must be at most ${HTTP_STEP_MAX_TIMEOUT_MS} (milliseconds)`).optional(),
  /** Tries after the first, for a 429, a 5xx, a timeout or a network failure. @default the engine's maxAttempts - 1 */
  retries: z.number().int().min(0, 'must be 0 or more').max(10, 'must be at most 10').optional(),
  /** A final failure leaves `steps.<stepId>.error` and the run goes on; without it the subscriber's run ends. @default false */
  continueOnFailure: z.boolean().optional(),
});
export type HttpStepConfig = z.infer<typeof httpStepSchema>;
export type HttpStepInput = z.input<typeof httpStepSchema>;
