import type { CodeStepRun } from '@tidings/core/internal';
import { check, type Schema, type SchemaOutput } from './schema.js';
import type { Awaitable, ControlsOf, StepOptions } from './types.js';

/** The request of a `step.http` (Tidings only): plain values, computed by the function (no Liquid). */
export interface HttpRequest {
  /** @default 'GET' */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url?: string;
  headers?: Record<string, string>;
  /** A JSON body (sent as `application/json`), or a text. */
  body?: string | Record<string, unknown>;
}

/** `step.http`'s options: the request, and how its answer is taken. */
export interface HttpStepOptions<R extends Schema | undefined = undefined, C extends Schema | undefined = undefined> extends Omit<StepOptions<C>, 'providers' | 'disableOutputSanitization' | 'fallbackTo'>, HttpRequest {
  /** The answer's JSON is checked against it (zod or JSON Schema) when the function reads it. */
  responseSchema?: R;
  /** Milliseconds the answer may take (100 to 30,000). @default 10000 */
  timeout?: number;
  /** Tries after the first for a 429, a 5xx, a timeout or a network failure. @default the engine's maxAttempts - 1 */
  retries?: number;
  /** A final failure resolves to `{ error }` and the run goes on; without it the subscriber's run ends. @default false */
  continueOnFailure?: boolean;
}

/** What a failed `step.http` resolves to under `continueOnFailure`. */
export interface HttpStepFailure {
  error: { message: string; status?: number };
}

/** The answer's fields (typed by `responseSchema`), or the failure under `continueOnFailure`. */
export type HttpStepResult<R> = R extends Schema ? SchemaOutput<R> | HttpStepFailure : Record<string, unknown>;

/**
 * `step.http(stepId, options)` or `step.http(stepId, resolver, options)`: the resolver (given the
 * step's controls) returns request members over the options'. Resolves to the answer's fields.
 */
export interface HttpStepFn {
  <R extends Schema | undefined = undefined, C extends Schema | undefined = undefined>(stepId: string, options: HttpStepOptions<R, C> & { url: string }): Promise<HttpStepResult<R>>;
  <R extends Schema | undefined = undefined, C extends Schema | undefined = undefined>(stepId: string, resolver: (controls: ControlsOf<C>) => Awaitable<HttpRequest>, options?: HttpStepOptions<R, C>): Promise<HttpStepResult<R>>;
}

type Options = HttpStepOptions<Schema | undefined, Schema | undefined>;

/** The request the walk job sends: the resolver's members over the options'. */
export function httpOutputs(stepId: string, options: Options, resolved: unknown): CodeStepRun {
  const given = (typeof resolved === 'object' && resolved !== null ? resolved : {}) as HttpRequest;
  const url = given.url ?? options.url;
  const outputs = {
    method: given.method ?? options.method ?? 'GET',
    ...(url !== undefined && { url }),
    ...((options.headers || given.headers) && { headers: { ...options.headers, ...given.headers } }),
    ...((given.body ?? options.body) !== undefined && { body: given.body ?? options.body }),
    ...(options.timeout !== undefined && { timeout: options.timeout }),
    ...(options.retries !== undefined && { retries: options.retries }),
    ...(options.continueOnFailure !== undefined && { continueOnFailure: options.continueOnFailure }),
  };
  return { kind: 'step', stepId, type: 'http', skipped: false, outputs: JSON.parse(JSON.stringify(outputs)) as Record<string, unknown> };
}

/**
 * A replayed `step.http`'s stored answer, checked against `responseSchema`: its data, the failure
 * under `continueOnFailure`, or a failed run naming each field.
 */
export async function httpResult(stepId: string, options: Options, stored: Record<string, unknown>): Promise<{ ok: true; value: unknown } | { ok: false; run: CodeStepRun }> {
  if (!options.responseSchema || 'error' in stored) return { ok: true, value: stored };
  const checked = await check(options.responseSchema, stored, 'response');
  if (checked.ok) return { ok: true, value: checked.data };
  const message = `the answer does not match responseSchema: ${checked.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
  if (options.continueOnFailure) return { ok: true, value: { error: { message } } };
  return { ok: false, run: { kind: 'failed', stepId, error: `step "${stepId}": ${message}` } };
}
