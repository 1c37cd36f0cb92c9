import { docsOf } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { Category } from '../../schemas/index.js';

export const CATEGORIES = 'categories';

export async function listCategories(records: RecordStore, env: string): Promise<Category[]> {
  return docsOf<Category>(await records.find(env, CATEGORIES, {}));
}

export const categoriesByKey = async (records: RecordStore, env: string): Promise<Map<string, Category>> =>
  new Map((await listCategories(records, env)).map((c) => [c.key, c] as const));
