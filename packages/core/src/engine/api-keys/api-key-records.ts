import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { docsOf, firstDoc } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { ApiKeyView } from '../../schemas/operating.js';

/** API keys, keyed by id, sorted by creation (`createdAt|id`). */
export const API_KEYS = 'api-keys';

/** A key as stored: its view and the SHA-256 of its secret (256 random bits: a slow hash adds nothing). */
export type StoredApiKey = ApiKeyView & { readonly hash: string };

/** A secret: `tdk_`, the key's id (to find it with one read), a dot, then 32 random bytes. */
const SECRET = /^tdk_([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

export const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

export function newSecret(id: string): string {
  return `tdk_${id}.${randomBytes(32).toString('base64url')}`;
}

/** The key id a secret names, or null when it is not one of ours. */
export const idOfSecret = (secret: string): string | null => SECRET.exec(secret)?.[1] ?? null;

/** Whether `secret` is the one whose hash was stored (compared in constant time). */
export function secretMatches(stored: StoredApiKey, secret: string): boolean {
  const a = Buffer.from(stored.hash, 'hex');
  const b = Buffer.from(hashOf(secret), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export const viewOf = ({ hash: _hash, ...view }: StoredApiKey): ApiKeyView => view;

export const putApiKey = (records: RecordStore, env: string, key: StoredApiKey) => records.put(env, API_KEYS, [{ key: key.id, sort: `${key.createdAt}|${key.id}`, doc: key }]);
export const getApiKey = async (records: RecordStore, env: string, id: string) => firstDoc<StoredApiKey>(await records.get(env, API_KEYS, [id]));
export const listApiKeys = async (records: RecordStore, env: string) => docsOf<StoredApiKey>(await records.find(env, API_KEYS, {}));
