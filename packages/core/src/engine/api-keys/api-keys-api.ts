import { notFound, TidingsError } from '../../errors.js';
import { newId } from '../../ids.js';
import { apiKeyCreateSchema, apiKeyRotateSchema, type ApiKeyCreateInput, type ApiKeyRotateInput, type ApiKeyView, type CreatedApiKey, type VerifiedApiKey } from '../../schemas/operating.js';
import { parseInput } from '../../validation.js';
import { currentActor } from '../audit/actor.js';
import { recordAudit } from '../audit/audit-records.js';
import type { EngineContext } from '../context.js';
import { getApiKey, hashOf, idOfSecret, listApiKeys, newSecret, putApiKey, secretMatches, viewOf, API_KEYS, type StoredApiKey } from './api-key-records.js';

/** Most keys an environment holds: a list an operator reads at a glance, and a bound on `list`. */
export const MAX_API_KEYS = 100;

const past = (what: string, path: string) => new TidingsError('validation_failed', `Invalid API key: ${path}: ${what}`, { issues: [{ path, message: what }] });

/**
 * API keys stored in the environment: several at once, each named and scoped, hashed at rest, shown
 * once when made. The HTTP adapter checks requests' keys with `verify`.
 */
export function apiKeysApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  /** Makes a key inside `tx`: the stored record and the secret to show. */
  async function make(records: typeof storage.records, input: { name: string; scope: StoredApiKey['scope']; expiresAt?: string | undefined; rotatedFrom?: string }): Promise<CreatedApiKey> {
    const now = ctx.clock.now();
    if (input.expiresAt !== undefined && input.expiresAt <= now.toISOString()) throw past('must be in the future', 'expiresAt');
    if ((await records.count(env, API_KEYS, {})) >= MAX_API_KEYS) throw new TidingsError('conflict', `The environment holds ${MAX_API_KEYS} API keys, the most it may: revoke one first`);
    const id = newId(now);
    const secret = newSecret(id);
    const key: StoredApiKey = {
      id,
      name: input.name,
      scope: input.scope,
      createdAt: now.toISOString(),
      expiresAt: input.expiresAt ?? null,
      createdBy: currentActor(),
      ...(input.rotatedFrom !== undefined && { rotatedFrom: input.rotatedFrom }),
      hash: hashOf(secret),
    };
    await putApiKey(records, env, key);
    return { ...viewOf(key), secret };
  }

  return {
    /** Makes a key; its `secret` is in the answer only (the store keeps its hash). */
    async create(input: ApiKeyCreateInput): Promise<CreatedApiKey> {
      const parsed = parseInput(apiKeyCreateSchema, input, 'API key');
      return storage.transaction(async (tx) => {
        const created = await make(tx.records, parsed);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'api-key', action: 'created', target: `${created.name} (${created.id})`, fields: ['scope', ...(created.expiresAt ? ['expiresAt'] : [])] }]);
        return created;
      });
    },
    /** Every key of the environment, oldest first, without secrets; expired ones too (they no longer work). */
    async list(): Promise<(ApiKeyView & { expired: boolean })[]> {
      const now = ctx.now();
      return (await listApiKeys(storage.records, env)).map((key) => ({ ...viewOf(key), expired: key.expiresAt !== null && key.expiresAt <= now }));
    },
    /** Deletes the key: it stops working at once. not_found when there is none. */
    async revoke(id: string): Promise<void> {
      await storage.transaction(async (tx) => {
        const key = await getApiKey(tx.records, env, id);
        if (!key) throw notFound('API key', id);
        await tx.records.delete(env, API_KEYS, [id]);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'api-key', action: 'revoked', target: `${key.name} (${key.id})` }]);
      });
    },
    /**
     * Makes a new key with the old one's name and scope, for a deploy without downtime: the old key
     * keeps working until it is revoked, or until `retireOldAt` when given. Returns the new key with
     * its secret. not_found when there is no key `id`.
     */
    async rotate(id: string, input: ApiKeyRotateInput = {}): Promise<CreatedApiKey> {
      const parsed = parseInput(apiKeyRotateSchema, input, 'API key rotation');
      return storage.transaction(async (tx) => {
        const old = await getApiKey(tx.records, env, id);
        if (!old) throw notFound('API key', id);
        const now = ctx.now();
        if (parsed.retireOldAt !== undefined) {
          if (parsed.retireOldAt < now) throw past('must not be in the past', 'retireOldAt');
          if (old.expiresAt !== null && parsed.retireOldAt > old.expiresAt) throw past(`must not be later than the old key's own expiry (${old.expiresAt})`, 'retireOldAt');
          await putApiKey(tx.records, env, { ...old, expiresAt: parsed.retireOldAt });
        }
        const created = await make(tx.records, { name: old.name, scope: old.scope, expiresAt: parsed.expiresAt, rotatedFrom: old.id });
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'api-key', action: 'rotated', target: `${old.name} (${old.id} → ${created.id})`, ...(parsed.retireOldAt !== undefined && { fields: ['expiresAt'] }) }]);
        return created;
      });
    },
    /**
     * The key a secret is, when it is one of this environment's and has not expired; null otherwise
     * (one read by the id the secret carries, the hash compared in constant time).
     */
    async verify(secret: string): Promise<VerifiedApiKey | null> {
      const id = idOfSecret(secret);
      if (id === null) return null;
      const key = await getApiKey(storage.records, env, id);
      if (!key || !secretMatches(key, secret) || (key.expiresAt !== null && key.expiresAt <= ctx.now())) return null;
      return { id: key.id, name: key.name, scope: key.scope };
    },
  };
}
