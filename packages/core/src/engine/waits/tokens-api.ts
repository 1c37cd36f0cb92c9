import { z } from 'zod';
import { notFound, TidingsError } from '../../errors.js';
import { docsOf } from '../../records/docs.js';
import { jsonObjectSchema } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import { tokenSignatureOk } from '../../waits/token-url.js';
import type { EngineContext } from '../context.js';
import { readLinkSecrets, verifyingSecrets } from '../links/link-secrets.js';
import { endWait } from './end-wait.js';
import { consumeWait, TOKENS, type WaitToken } from './wait-records.js';

export type { WaitToken } from './wait-records.js';

const tokenIdSchema = z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
export const tokenListQuerySchema = z.strictObject({
  transactionId: z.string().min(1, 'must not be empty').optional(),
  subscriberId: z.string().min(1, 'must not be empty').optional(),
  status: z.enum(['waiting', 'completed', 'timed_out']).optional(),
  limit: z.number().int().min(1).max(100).default(50),
});
export type TokenListQuery = z.input<typeof tokenListQuerySchema>;

/** Tokens of `waitForToken`: read them, and complete them (once) to resume their runs. */
export function tokensApi(ctx: EngineContext) {
  const { env, storage } = ctx;

  async function completeIn(tx: StorageRepositories, id: string, output: Record<string, unknown>): Promise<WaitToken> {
    const [stored] = await tx.records.get(env, TOKENS, [id]);
    if (!stored) throw notFound('Token', id);
    const token = stored.doc as WaitToken;
    // The wait record is the race: of two completions (or a completion and the timeout) one gets it.
    const wait = await consumeWait(tx.records, env, token.waitId);
    if (!wait) throw new TidingsError('conflict', `token "${id}" is ${token.status === 'waiting' ? 'no longer waiting' : token.status.replace('_', ' ')}: it resumes its run once`, { issues: [{ path: 'id', message: `is ${token.status}` }] });
    await endWait(ctx, tx, wait, { kind: 'token', output }, ctx.clock.now(), id);
    return (await tx.records.get(env, TOKENS, [id]))[0]!.doc as WaitToken;
  }

  return {
    /** The token; not_found when there is none. */
    async get(id: string): Promise<WaitToken> {
      const tokenId = parseInput(tokenIdSchema, id, 'token id');
      const [stored] = await storage.records.get(env, TOKENS, [tokenId]);
      if (!stored) throw notFound('Token', tokenId);
      return stored.doc as WaitToken;
    },
    /** Tokens of a trigger or a subscriber, oldest first. */
    async list(query: TokenListQuery = {}): Promise<WaitToken[]> {
      const q = parseInput(tokenListQuerySchema, query, 'token query');
      const tokens = docsOf<WaitToken>(await storage.records.find(env, TOKENS, { ...(q.transactionId && { i1: q.transactionId }), ...(q.subscriberId && { i2: q.subscriberId }) }));
      return tokens.filter((t) => q.status === undefined || t.status === q.status).slice(0, q.limit);
    },
    /**
     * Completes the token: its run resumes with `output` (`steps.<id>.output`), inside one transaction
     * (the app's, when given). Once: a token completed or timed out before is a conflict, changing nothing.
     */
    async complete(id: string, output: Record<string, unknown> = {}, options: { transaction?: StorageRepositories } = {}): Promise<WaitToken> {
      const tokenId = parseInput(tokenIdSchema, id, 'token id');
      const data = parseInput(jsonObjectSchema, output, 'token output');
      return options.transaction ? completeIn(options.transaction, tokenId, data) : storage.transaction((tx) => completeIn(tx, tokenId, data));
    },
    /** Completes the token its signed URL names (`POST /v1/tokens/:id/complete?sig=…`); unauthorized for a signature that does not verify. */
    async completeSigned(id: string, sig: string, output: Record<string, unknown> = {}): Promise<WaitToken> {
      const tokenId = parseInput(tokenIdSchema, id, 'token id');
      const secrets = await readLinkSecrets(storage.records, env);
      if (!secrets || typeof sig !== 'string' || !tokenSignatureOk(verifyingSecrets(secrets), tokenId, sig)) throw new TidingsError('unauthorized', 'The token URL is not signed by this environment', { issues: [{ path: 'sig', message: 'does not verify' }] });
      const data = parseInput(jsonObjectSchema, output, 'token output');
      return storage.transaction((tx) => completeIn(tx, tokenId, data));
    },
  };
}
