import { z } from 'zod';
import { ProviderError } from '../../delivery/provider.js';
import type { HttpStepAnswer, HttpStepTransport } from '../../delivery/http-step-transport.js';
import type { JsonObject, RanStep } from '../../schemas/index.js';
import { describeRequest, type HttpStepCall } from '../../walk/http-request.js';
import { httpFailure } from '../../walk/flow-steps.js';
import type { TraceEntry } from '../../walk/trace.js';
import { nextAttemptAt } from '../runtime/jobs.js';

/** The largest answer kept (it travels with the walk's job): larger ones are a final failure. */
const MAX_ANSWER_CHARS = 64 * 1024;

/** What the walk job does after an `http` step's request. */
export type HttpStepOutcome =
  /** Answered (or failed for good with `continueOnFailure`): `ran` joins the walk's state and the walk goes on after the step. */
  | { readonly kind: 'next'; readonly ran: RanStep; readonly entry: TraceEntry }
  /** A failure worth trying again: the step runs again at `runAt`. */
  | { readonly kind: 'retry'; readonly runAt: Date; readonly error: string; readonly entry: TraceEntry }
  /** Failed for good: the subscriber's run ends here. */
  | { readonly kind: 'end'; readonly entry: TraceEntry };

/** `Retry-After` (seconds, or an HTTP date) in milliseconds from `now`, when the answer has one. */
function retryAfterMs(answer: HttpStepAnswer, now: Date): number | undefined {
  const raw = answer.headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** JSON as a step's result: an object's fields; any other JSON under `data`. */
const asResult = (json: unknown): JsonObject => (typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as JsonObject) : { data: json });

/** The answer's body as JSON (empty: `{}`), or its text when it is not JSON (kept under `text`). */
function resultOfBody(body: string): { ok: true; json: unknown; result: JsonObject } | { ok: false; text: string } {
  if (body.trim() === '') return { ok: true, json: {}, result: {} };
  try {
    const json: unknown = JSON.parse(body);
    return { ok: true, json, result: asResult(json) };
  } catch {
    return { ok: false, text: body };
  }
}

/** Checks the answer's JSON against the step's JSON Schema; the issues name each field. */
function schemaIssues(schema: Readonly<Record<string, unknown>>, json: unknown): { ok: true; data: unknown } | { ok: false; error: string } {
  const parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, error: parsed.error.issues.slice(0, 5).map((i) => `${i.path.length > 0 ? i.path.join('.') : '(the answer)'}: ${i.message}`).join('; ') };
}

/**
 * Sends an `http` step's request through the transport (in the walk job, outside any transaction)
 * and classifies what came back as the providers' answers are: 2xx taken (its JSON checked against
 * `responseSchema`), 429 (honouring `Retry-After`), 5xx, timeouts and network failures tried again
 * while attempts last, anything else final. A final failure goes on with `steps.<id>.error` under
 * `continueOnFailure`, else ends the run. Every try carries the same `idempotency-key` (unless the
 * step sets one), as a request that timed out may have arrived. `explain` gets the method, the URL without its query, and
 * the status; never a header value or the body.
 */
export async function runHttpStep(call: HttpStepCall, transport: HttpStepTransport | undefined, attempt: { attempts: number; maxAttempts: number; now: Date; idempotencyKey: string }): Promise<HttpStepOutcome> {
  const what = describeRequest(call.request);
  const entry = (decision: TraceEntry['decision'], reason: string): TraceEntry => ({ stepIndex: call.stepIndex, stepId: call.stepId, type: 'http', decision, reason });
  const final = (reason: string, status?: number): HttpStepOutcome =>
    call.continueOnFailure
      ? { kind: 'next', ran: { stepId: call.resultKey, stepIndex: call.stepIndex, type: 'http', skipped: false, result: httpFailure(reason, status) }, entry: entry('failed', `${what}: ${reason}; the run goes on (continueOnFailure)`) }
      : { kind: 'end', entry: entry('failed', `${what}: ${reason}; the run ends here`) };
  const retry = (reason: string, afterMs: number | undefined, status?: number): HttpStepOutcome => {
    const tries = call.retries !== undefined ? call.retries + 1 : attempt.maxAttempts;
    const runAt = nextAttemptAt(attempt.attempts, tries, attempt.now, afterMs);
    if (!runAt) return final(`${reason}, after ${attempt.attempts} attempt${attempt.attempts === 1 ? '' : 's'}`, status);
    return { kind: 'retry', runAt, error: `${what}: ${reason}`, entry: entry('held', `${what}: ${reason}; tried again at ${runAt.toISOString()} (attempt ${attempt.attempts} of ${tries})`) };
  };
  if (!transport) return final('the engine has no httpStepTransport (give createTidings `httpStepTransport()` of @tidings/providers)');
  let answer: HttpStepAnswer;
  try {
    // The same key on every try of this step for this subscriber's run: a service can tell a try again from a new request.
    answer = await transport({ method: call.request.method, url: call.request.url, headers: { 'idempotency-key': attempt.idempotencyKey, ...call.request.headers }, timeoutMs: call.request.timeoutMs, ...(call.request.body !== undefined && { body: call.request.body }) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ProviderError && !error.retryable) return final(message);
    return retry(message, error instanceof ProviderError ? error.options.retryAfterMs : undefined);
  }
  const { status } = answer;
  if (answer.body.length > MAX_ANSWER_CHARS) return final(`answered ${status} with more than ${MAX_ANSWER_CHARS / 1024} KB`, status);
  if (status === 429 || status >= 500 || status === 0) return retry(`answered ${status}`, retryAfterMs(answer, attempt.now), status);
  if (status < 200 || status >= 300) return final(`answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`, status);
  const body = resultOfBody(answer.body);
  if (!body.ok) {
    if (call.responseSchema) return final(`answered ${status}, but not with JSON`, status);
    return { kind: 'next', ran: { stepId: call.resultKey, stepIndex: call.stepIndex, type: 'http', skipped: false, result: { text: body.text } }, entry: entry('ran', `${what} answered ${status}`) };
  }
  let result = body.result;
  if (call.responseSchema) {
    const checked = schemaIssues(call.responseSchema, body.json);
    if (!checked.ok) return final(`answered ${status}, but its JSON does not match responseSchema: ${checked.error}`, status);
    result = asResult(checked.data);
  }
  return { kind: 'next', ran: { stepId: call.resultKey, stepIndex: call.stepIndex, type: 'http', skipped: false, result }, entry: entry('ran', `${what} answered ${status}`) };
}
