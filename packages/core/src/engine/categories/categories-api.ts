import { notFound } from '../../errors.js';
import { categoryName } from '../../preferences/categories.js';
import { categoryInputSchema, categoryKeySchema, type Category, type CategoryInput } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { CATEGORIES, listCategories } from './category-records.js';

/**
 * Categories of workflows (`marketing`, `product-updates`, …): a workflow names its category; a
 * stored category gives it a name and description for the preference page and an unsubscribe default
 * for its workflows. A category need not be stored to be used.
 */
export function categoriesApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  const keyOf = (key: string) => parseInput(categoryKeySchema, key, 'category key');
  return {
    /** Creates or changes a category; members left out keep their values (the name defaults to the key in words). */
    async upsert(key: string, input: CategoryInput = {}): Promise<Category> {
      const parsedKey = keyOf(key);
      const parsed = parseInput(categoryInputSchema, input, 'category');
      return storage.transaction(async (tx) => {
        const existing = (await tx.records.get(env, CATEGORIES, [parsedKey]))[0]?.doc as Category | undefined;
        const category: Category = { ...existing, ...parsed, key: parsedKey, name: parsed.name ?? existing?.name ?? categoryName(parsedKey), updatedAt: ctx.now() };
        await tx.records.put(env, CATEGORIES, [{ key: parsedKey, sort: parsedKey, doc: category }]);
        return category;
      });
    },
    async get(key: string): Promise<Category | null> {
      return ((await storage.records.get(env, CATEGORIES, [keyOf(key)]))[0]?.doc as Category | undefined) ?? null;
    },
    list: (): Promise<Category[]> => listCategories(storage.records, env),
    /** Forgets the category's name and settings; workflows keep naming it, and subscribers' choices for it stay. */
    async delete(key: string): Promise<void> {
      if ((await storage.records.delete(env, CATEGORIES, [keyOf(key)])) === 0) throw notFound('category', key);
    },
  };
}
