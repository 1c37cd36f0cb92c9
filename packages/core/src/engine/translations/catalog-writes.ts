import { firstDoc } from '../../records/docs.js';
import type { RecordStore } from '../../records/record-store.js';
import { translationCatalogInputSchema, type TranslationCatalog } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { canonicalLocale, type CatalogRef } from '../../translations/locale-chain.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { saveRevision } from '../revisions/revision-records.js';
import { CATALOG_HISTORY } from '../revisions/revision-kinds.js';
import { TRANSLATIONS, catalogKey } from './catalog-records.js';

export const checkCatalog = (input: unknown) => parseInput(translationCatalogInputSchema, input, 'translations');

/** The catalog a checked input makes (its locale in canonical form). */
export const buildCatalog = (input: ReturnType<typeof checkCatalog>, stored: TranslationCatalog | null, now: string): TranslationCatalog => ({
  locale: canonicalLocale(input.locale),
  tenant: input.tenant ?? null,
  entries: input.entries,
  revision: stored?.revision ?? 0,
  updatedAt: now,
});

export async function getCatalog(records: RecordStore, env: string, ref: CatalogRef): Promise<TranslationCatalog | null> {
  return firstDoc<TranslationCatalog>(await records.get(env, TRANSLATIONS, [catalogKey(ref)]));
}

/** Stores a catalog over the stored one (replacing it whole) as a new revision (none when it is the same). */
export async function saveCatalog(ctx: EngineContext, tx: StorageRepositories, catalog: TranslationCatalog, stored: TranslationCatalog | null, by: string, restores?: number): Promise<TranslationCatalog> {
  const put = async (value: TranslationCatalog) => (await tx.records.put(ctx.env, TRANSLATIONS, [{ key: catalogKey(value), i1: value.tenant ?? '', doc: value }]), value);
  return (await saveRevision(tx.records, ctx.env, CATALOG_HISTORY, { stored, value: catalog, by, restores }, put)).value;
}
