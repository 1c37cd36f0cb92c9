import { docsOf } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import type { TranslationCatalog } from '../../schemas/index.js';
import { canonicalLocale, type CatalogRef } from '../../translations/locale-chain.js';
import { mergeCatalogs, type CatalogEntries, type CatalogSource } from '../../translations/translator.js';

export const TRANSLATIONS = 'translations';

/** A catalog's key: its tenant ('' for the environment's) and its locale. */
export const catalogKey = (ref: CatalogRef) => `${ref.tenant ?? ''}\u0001${canonicalLocale(ref.locale)}`;

/** Whether the environment has translation catalogs, given in code or stored: its walks then translate (`catalogSource`). */
export async function hasCatalogs(records: RecordStore, env: string, code: Readonly<Record<string, CatalogEntries>>): Promise<boolean> {
  return Object.keys(code).length > 0 || (await records.find(env, TRANSLATIONS, { limit: 1 })).length > 0;
}

export async function listCatalogs(records: RecordStore, env: string): Promise<TranslationCatalog[]> {
  return docsOf<TranslationCatalog>(await records.find(env, TRANSLATIONS, {}));
}


/**
 * The catalogs of an environment by place: those given in code (`createTidings({ translations })`,
 * the environment's) with the stored ones over them, key by key.
 */
export function catalogSource(code: Readonly<Record<string, CatalogEntries>>, stored: readonly TranslationCatalog[]): CatalogSource | undefined {
  if (stored.length === 0 && Object.keys(code).length === 0) return undefined;
  const byKey = new Map<string, CatalogEntries>();
  for (const [locale, entries] of Object.entries(code)) byKey.set(catalogKey({ tenant: null, locale }), entries);
  for (const catalog of stored) {
    const key = catalogKey(catalog);
    const before = byKey.get(key);
    byKey.set(key, before ? mergeCatalogs(before, catalog.entries as CatalogEntries) : (catalog.entries as CatalogEntries));
  }
  return (ref) => byKey.get(catalogKey(ref));
}
