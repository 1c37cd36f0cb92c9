import { notFound } from '../../errors.js';
import { brandInputSchema, type Brand, type BrandInput } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { BRANDS, brandKey, listBrands, readBrands } from './look-records.js';

/**
 * Brands: the environment's (no `tenant`) and each tenant's, laid over it member by member when a
 * message for that tenant is rendered (`brand.*` in templates and layouts, the sender name, Reply-To).
 */
export function brandsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    /** Stores a brand whole (members left out are not kept from an earlier one). */
    async upsert(input: BrandInput): Promise<Brand> {
      const parsed = parseInput(brandInputSchema, input, 'brand');
      const brand: Brand = { ...parsed, updatedAt: ctx.now() };
      await storage.records.put(env, BRANDS, [{ key: brandKey(parsed.tenant), doc: brand }]);
      return brand;
    },
    /** The environment's brand, or a tenant's own (without the environment's under it); null when none is stored. */
    async get(tenant?: string): Promise<Brand | null> {
      return (await readBrands(storage.records, env, tenant === undefined ? [] : [tenant])).get(brandKey(tenant)) ?? null;
    },
    list: (): Promise<Brand[]> => listBrands(storage.records, env),
    async delete(tenant?: string): Promise<void> {
      if ((await storage.records.delete(env, BRANDS, [brandKey(tenant)])) === 0) throw notFound('brand', tenant ?? 'of the environment');
    },
  };
}
