import { createHash } from 'node:crypto';
import type { Context, Next } from 'hono';
import type { AppEnv } from './context.js';
import { HttpError } from './errors.js';

const IN_FLIGHT_MS = 60_000;
const KEEP_MS = 24 * 3_600_000;
/** Every this many stored responses, expired records of the environment are deleted. */
const PURGE_EVERY = 500;
let stored = 0;
/** Where Novu's answers about idempotency point; our semantics are the same, documented in the README. */
const DOCS_LINK = 'https://docs.novu.co/additional-resources/idempotency';

/**
 * POST and PATCH with an `idempotency-key`: the first response is kept for 24 h per environment; the
 * same key and body replays it (`Idempotency-Replay: true`), another body is a 422, and a request
 * still running is a 409 with `Retry-After: 1`. Every keyed answer carries `Idempotency-Key`; the
 * wording of the refusals is Novu's. Records live in the storage, so this holds across
 * restarts and processes. GETs ignore the header.
 */
export async function idempotency(c: Context<AppEnv>, next: Next): Promise<Response | void> {
  const key = c.req.header('idempotency-key');
  if (key === undefined || (c.req.method !== 'POST' && c.req.method !== 'PATCH')) return next();
  if (key.length === 0) throw new HttpError(400, 'idempotencyKey must not be empty');
  if (key.length > 255) throw new HttpError(400, `idempotencyKey "${key}" has exceeded the maximum allowed length of 255 characters`);
  const tidings = c.get('tidings');
  const fingerprint = createHash('sha256').update(`${c.req.method} ${c.req.path}\n${c.get('bodyText')}`).digest('hex');
  const begun = await tidings.idempotency.begin({ key, fingerprint, inFlightMs: IN_FLIGHT_MS, keepMs: KEEP_MS });
  const keyed = { 'Idempotency-Key': key };
  if (begun.state !== 'started') {
    // In flight first, whatever the body, as Novu checks.
    if (begun.state === 'in_flight') {
      throw new HttpError(409, `Request with key "${key}" is currently being processed. Please retry after 1 second`, {}, { ...keyed, 'Retry-After': '1', Link: DOCS_LINK });
    }
    if (begun.fingerprint !== fingerprint) {
      throw new HttpError(422, `Request with key "${key}" is being reused for a different body`, { errors: { 'idempotency-key': { messages: ['was used with another request body'] } } }, { ...keyed, Link: DOCS_LINK });
    }
    return new Response(begun.response.body, { status: begun.response.status, headers: { ...begun.response.headers, ...keyed, 'Idempotency-Replay': 'true' } });
  }
  c.set('idempotency', { key, since: begun.since, fingerprint });
  // Set before the handler runs, so its response carries the key whether it succeeds or fails.
  c.header('Idempotency-Key', key);
  try {
    await next();
  } catch (error) {
    await tidings.idempotency.release(key);
    throw error;
  }
  const response = c.res;
  if (response.status >= 500) {
    await tidings.idempotency.release(key);
    return;
  }
  const body = await response.clone().text();
  await tidings.idempotency.complete({ key, response: { status: response.status, body, headers: { 'content-type': response.headers.get('content-type') ?? 'application/json' } }, keepMs: KEEP_MS });
  // Novu's SDK sends a key with every call, so records pile up: sweep the expired ones now and then.
  if (++stored % PURGE_EVERY === 0) await tidings.idempotency.purgeExpired();
}
