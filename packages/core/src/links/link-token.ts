import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a link lets its holder do: open the subscriber's preference page, or unsubscribe in one click. */
export type LinkPurpose = 'preferences' | 'unsubscribe';

/** What a signed link carries. It names one subscriber of one environment and nothing else. */
export interface LinkClaims {
  readonly environmentId: string;
  readonly subscriberId: string;
  readonly purpose: LinkPurpose;
  /** The workflow an unsubscribe link opts out of (or whose category it opts out of). */
  readonly workflowId?: string;
  readonly category?: string;
  /** The tenant whose brand the page wears. */
  readonly tenant?: string;
  /** Milliseconds since the epoch; absent: the link does not expire. */
  readonly expiresAt?: number;
}

export type LinkCheck = { readonly ok: true; readonly claims: LinkClaims } | { readonly ok: false; readonly reason: 'malformed' | 'signature' | 'expired' | 'environment' };

const VERSION = 'v1';
const b64 = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const mac = (secret: string, body: string) => createHmac('sha256', secret).update(`tidings-link.${VERSION}.${body}`).digest().subarray(0, 20);

/** A token for `claims`: the claims (base64url JSON) and an HMAC-SHA256 of them under the environment's secret. */
export function signLink(secret: string, claims: LinkClaims): string {
  const body = b64(JSON.stringify({ e: claims.environmentId, s: claims.subscriberId, p: claims.purpose, w: claims.workflowId, c: claims.category, t: claims.tenant, x: claims.expiresAt }));
  return `${body}.${b64(mac(secret, body))}`;
}

/**
 * The claims of a token signed with one of `secrets` (the current one, and the previous one while it
 * is kept), for environment `environmentId`, not expired at `now`. The signature is compared in
 * constant time, before anything of the claims is trusted.
 */
export function verifyLink(secrets: readonly string[], token: string, environmentId: string, now: number): LinkCheck {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(signature)) return { ok: false, reason: 'malformed' };
  const given = Buffer.from(signature, 'base64url');
  const signed = secrets.some((secret) => {
    const expected = mac(secret, body);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!signed) return { ok: false, reason: 'signature' };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const environment = text(raw['e']);
  const subscriberId = text(raw['s']);
  const purpose = raw['p'] === 'preferences' || raw['p'] === 'unsubscribe' ? raw['p'] : undefined;
  if (!environment || !subscriberId || !purpose) return { ok: false, reason: 'malformed' };
  if (environment !== environmentId) return { ok: false, reason: 'environment' };
  const expiresAt = typeof raw['x'] === 'number' ? raw['x'] : undefined;
  if (expiresAt !== undefined && expiresAt <= now) return { ok: false, reason: 'expired' };
  const workflowId = text(raw['w']);
  const category = text(raw['c']);
  const tenant = text(raw['t']);
  return { ok: true, claims: { environmentId: environment, subscriberId, purpose, ...(workflowId && { workflowId }), ...(category && { category }), ...(tenant && { tenant }), ...(expiresAt !== undefined && { expiresAt }) } };
}

/** The page a token opens, under the engine's public base URL. */
export const linkUrl = (baseUrl: string, purpose: LinkPurpose, token: string) => `${baseUrl.replace(/\/+$/, '')}/${purpose === 'unsubscribe' ? 'unsubscribe' : 'preferences'}/${token}`;

/** The environment a token says it is for, unchecked: only to pick which engine checks it. */
export function linkEnvironment(token: string): string | null {
  const body = token.split('.')[0];
  if (!body || !/^[A-Za-z0-9_-]+$/.test(body)) return null;
  try {
    const e = (JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { e?: unknown }).e;
    return typeof e === 'string' ? e : null;
  } catch {
    return null;
  }
}
