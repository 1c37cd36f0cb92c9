import type { Tidings } from '@tidings/core';
import type { ApiKeyScope } from '@tidings/core/schemas';
import { HttpError } from './errors.js';

/** Who a request is made by and what its key may do. */
export interface Caller {
  readonly tidings: Tidings;
  /** `api` for a configured key, `key:<name>` for a stored one: the audit log's and revisions' "who". */
  readonly who: string;
  readonly scope: ApiKeyScope;
}

/** The routes a `trigger` key may call: triggering, in bulk, and broadcasts (POST only). */
const TRIGGER_PATHS = new Set(['/v1/events/trigger', '/v1/events/trigger/bulk', '/v1/events/trigger/broadcast']);

/**
 * The engine and caller a key stands for: a key given to `createHttpApp` (full scope, as before
 * stored keys), else a key stored in one of the environments (`tidings.apiKeys`), checked through its
 * engine. null when it is neither (unknown, revoked or expired).
 */
export async function callerOf(secret: string, configured: ReadonlyMap<string, Tidings>, engines: readonly Tidings[]): Promise<Caller | null> {
  const tidings = configured.get(secret);
  if (tidings) return { tidings, who: 'api', scope: 'full' };
  // Only secrets shaped as stored keys are looked up: anything else costs no read.
  if (!secret.startsWith('tdk_')) return null;
  for (const engine of engines) {
    const key = await engine.apiKeys.verify(secret);
    if (key) return { tidings: engine, who: `key:${key.name}`, scope: key.scope };
  }
  return null;
}

/** Refuses (403) a request its key's scope does not allow, saying what the key may do. */
export function checkScope(caller: Caller, method: string, path: string): void {
  if (caller.scope === 'full') return;
  const name = caller.who.slice('key:'.length);
  if (caller.scope === 'read') {
    if (method === 'GET' || method === 'HEAD') return;
    throw new HttpError(403, `The API key "${name}" has the read scope: it may only make GET requests, and ${method} ${path} needs a key with the full scope`);
  }
  if (method === 'POST' && TRIGGER_PATHS.has(path.replace(/\/+$/, ''))) return;
  throw new HttpError(403, `The API key "${name}" has the trigger scope: it may only POST /v1/events/trigger, /v1/events/trigger/bulk and /v1/events/trigger/broadcast, and ${method} ${path} needs a key with the ${method === 'GET' || method === 'HEAD' ? 'read or full' : 'full'} scope`);
}
