import { docsOf, firstDoc } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { Brand, Layout, Partial } from '../../schemas/index.js';

export const LAYOUTS = 'layouts';
export const BRANDS = 'brands';
export const PARTIALS_TABLE = 'partials';
/** The environment's own brand's key: no tenant identifier can be it (they start with a letter or digit). */
export const ENVIRONMENT_BRAND = '~environment';

/** Layouts by identifier; the default one has `i1 = 'default'`. */
export const layoutRecord = (layout: Layout) => ({ key: layout.identifier, i1: layout.isDefault ? 'default' : null, sort: layout.identifier, doc: layout });

export const brandKey = (tenant: string | undefined) => tenant ?? ENVIRONMENT_BRAND;

export async function getLayout(records: RecordStore, env: string, identifier: string): Promise<Layout | null> {
  return firstDoc<Layout>(await records.get(env, LAYOUTS, [identifier]));
}

export async function listLayouts(records: RecordStore, env: string): Promise<Layout[]> {
  return docsOf<Layout>(await records.find(env, LAYOUTS, {}));
}

export async function defaultLayouts(records: RecordStore, env: string): Promise<Layout[]> {
  return docsOf<Layout>(await records.find(env, LAYOUTS, { i1: 'default' }));
}

/** The environment's brand and these tenants' brands, by key (see `brandKey`). */
export async function readBrands(records: RecordStore, env: string, tenants: readonly string[]): Promise<Map<string, Brand>> {
  const found = await records.get(env, BRANDS, [ENVIRONMENT_BRAND, ...tenants]);
  return new Map(found.map((r) => [r.key, r.doc as Brand] as const));
}

export async function listBrands(records: RecordStore, env: string): Promise<Brand[]> {
  return docsOf<Brand>(await records.find(env, BRANDS, {}));
}

export async function listPartials(records: RecordStore, env: string): Promise<Partial[]> {
  return docsOf<Partial>(await records.find(env, PARTIALS_TABLE, {}));
}

export async function getPartial(records: RecordStore, env: string, identifier: string): Promise<Partial | null> {
  return firstDoc<Partial>(await records.get(env, PARTIALS_TABLE, [identifier]));
}
