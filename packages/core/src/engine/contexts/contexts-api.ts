import { notFound, TidingsError } from '../../errors.js';
import { contextIdSchema, contextInputSchema, contextTypeSchema, contextUpdateSchema, type ContextInput, type ContextUpdate, type StoredContext } from '../../schemas/context.js';
import { docsOf } from '../../records/docs.js';
import { parseInput } from '../../validation.js';
import { z } from 'zod';
import type { EngineContext } from '../context.js';
import { CONTEXTS, contextRecordKey, putContexts, readContexts } from './context-records.js';

/** `contexts.list(query)`: a page in key order (`type:id`), of one type or id when given. */
export const contextListQuerySchema = z.strictObject({
  limit: z.number().int().min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100').default(10),
  /** The `type:id` key of the last context of the previous page. */
  after: z.string().min(1).optional(),
  type: contextTypeSchema.optional(),
  /** Contexts with this id, of any type. */
  id: contextIdSchema.optional(),
});
export type ContextListQuery = z.input<typeof contextListQuerySchema>;

export interface ContextPage {
  readonly data: StoredContext[];
  /** The `after` of the next page; null after the last. */
  readonly next: string | null;
  readonly totalCount: number;
}

/**
 * Contexts (Novu's, 2025): a tenant, an app, a workspace a trigger happens in, stored by type and id
 * with data templates read as `{{ context.<type>.data.* }}`. A trigger names up to five; one given
 * with data is stored, one named by id alone reads the stored data. Novu's Inbox opened with a
 * `context` shows only the messages triggered with exactly that context.
 */
export function contextsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  const keyOf = (type: string, id: string) => contextRecordKey(parseInput(contextTypeSchema, type, 'context type'), parseInput(contextIdSchema, id, 'context id'));
  const one = async (key: string) => (await readContexts(storage.records, env, [key])).get(key) ?? null;

  return {
    /** Stores a new context; one stored with the same type and id is a conflict. */
    async create(input: ContextInput): Promise<StoredContext> {
      const { type, id, data } = parseInput(contextInputSchema, input, 'context');
      return storage.transaction(async (tx) => {
        const key = contextRecordKey(type, id);
        if ((await readContexts(tx.records, env, [key])).has(key)) throw new TidingsError('conflict', `context "${key}" already exists`, { issues: [{ path: 'id', message: 'is taken for this type' }] });
        const now = ctx.now();
        const context: StoredContext = { type, id, data, createdAt: now, updatedAt: now };
        await putContexts(tx.records, env, [context]);
        return context;
      });
    },
    async get(type: string, id: string): Promise<StoredContext | null> {
      return one(keyOf(type, id));
    },
    /** Replaces the context's data. */
    async update(type: string, id: string, input: ContextUpdate): Promise<StoredContext> {
      const key = keyOf(type, id);
      const { data } = parseInput(contextUpdateSchema, input, 'context');
      return storage.transaction(async (tx) => {
        const stored = (await readContexts(tx.records, env, [key])).get(key);
        if (!stored) throw notFound('context', key);
        const context: StoredContext = { ...stored, data, updatedAt: ctx.now() };
        await putContexts(tx.records, env, [context]);
        return context;
      });
    },
    /** Forgets the context; messages triggered with it keep their context keys. */
    async delete(type: string, id: string): Promise<void> {
      const key = keyOf(type, id);
      if ((await storage.records.delete(env, CONTEXTS, [key])) === 0) throw notFound('context', key);
    },
    async list(query: ContextListQuery = {}): Promise<ContextPage> {
      const { limit, after, type, id } = parseInput(contextListQuerySchema, query, 'context list query');
      const where = { ...(type !== undefined && { i1: type }), ...(id !== undefined && { i2: id }) };
      const rows = docsOf<StoredContext>(await storage.records.find(env, CONTEXTS, { ...where, ...(after !== undefined && { after: { sort: after, key: after } }), limit: limit + 1 }));
      const data = rows.slice(0, limit);
      const last = data[data.length - 1];
      const totalCount = await storage.records.count(env, CONTEXTS, where);
      return { data, next: rows.length > limit && last ? contextRecordKey(last.type, last.id) : null, totalCount };
    },
  };
}
