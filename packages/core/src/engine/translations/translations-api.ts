import { notFound } from '../../errors.js';
import { poImportInputSchema, translationCatalogInputSchema, type PoImport, type TranslationCatalog, type TranslationCatalogInput } from '../../schemas/index.js';
import { poEntries } from '../../translations/po-catalog.js';
import { canonicalLocale } from '../../translations/locale-chain.js';
import { mergeCatalogs, translator, type CatalogEntries, type CatalogSource, type Translator } from '../../translations/translator.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { TRANSLATIONS, catalogKey, catalogSource, listCatalogs } from './catalog-records.js';

/**
 * Translation catalogs per locale, for the environment or one tenant, stored as records (over the
 * catalogs given in code). Templates translate with `{{ 'key' | t: name: value }}` or `{{ t.key }}`.
 */
export function translationsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  async function upsert(input: TranslationCatalogInput): Promise<TranslationCatalog> {
    const parsed = parseInput(translationCatalogInputSchema, input, 'translations');
    const catalog: TranslationCatalog = { locale: canonicalLocale(parsed.locale), tenant: parsed.tenant ?? null, entries: parsed.entries, updatedAt: ctx.now() };
    await storage.records.put(env, TRANSLATIONS, [{ key: catalogKey(catalog), i1: catalog.tenant ?? '', doc: catalog }]);
    return catalog;
  }
  return {
    /** Stores a locale's catalog (the environment's, or a tenant's), replacing the one stored before. */
    upsert,
    /**
     * Stores a gettext PO file as a locale's catalog (replacing the one stored before, as `upsert`
     * does): msgids are keys, a msgctxt their first part, plural entries ICU plurals on `count`.
     * Fuzzy and untranslated entries are left out and listed; an entry that cannot be a catalog
     * text refuses the whole file, naming it, and nothing is stored.
     */
    async importPo(locale: string, po: string, options: { tenant?: string } = {}): Promise<PoImport> {
      const parsed = parseInput(poImportInputSchema, { locale, po, ...(options.tenant !== undefined && { tenant: options.tenant }) }, 'PO import');
      const made = await poEntries(parsed.po, canonicalLocale(parsed.locale));
      const catalog = await upsert({ locale: parsed.locale, entries: made.entries, ...(parsed.tenant !== undefined && { tenant: parsed.tenant }) });
      return { catalog, imported: made.imported, skipped: made.skipped };
    },
    async get(locale: string, options: { tenant?: string } = {}): Promise<TranslationCatalog | null> {
      const [found] = await storage.records.get(env, TRANSLATIONS, [catalogKey({ tenant: options.tenant ?? null, locale })]);
      return found ? (found.doc as TranslationCatalog) : null;
    },
    /** Every stored catalog of the environment. */
    list: (): Promise<TranslationCatalog[]> => listCatalogs(storage.records, env),
    async delete(locale: string, options: { tenant?: string } = {}): Promise<void> {
      if ((await storage.records.delete(env, TRANSLATIONS, [catalogKey({ tenant: options.tenant ?? null, locale })])) === 0) throw notFound('translations', `${locale}${options.tenant ? ` of tenant ${options.tenant}` : ''}`);
    },
    /**
     * A translator for one locale and tenant, with the catalogs read once: `t(key, values)` as a
     * template's `t` filter. `defaults` are English texts used when no catalog has a key (the texts
     * of your own pages, say), under the key names you give.
     */
    async forLocale(locale: string | null | undefined, options: { tenant?: string | null; defaults?: CatalogEntries } = {}): Promise<Pick<Translator, 't' | 'locale'>> {
      const stored = catalogSource(ctx.options.translations, await listCatalogs(storage.records, env));
      const defaults = options.defaults;
      const source: CatalogSource = (ref) => {
        const found = stored?.(ref);
        if (!defaults || ref.tenant !== null || canonicalLocale(ref.locale) !== canonicalLocale(ctx.options.defaultLocale)) return found;
        return found ? mergeCatalogs(defaults, found) : defaults;
      };
      return translator(source, { locale: locale ?? ctx.options.defaultLocale, defaultLocale: ctx.options.defaultLocale, tenant: options.tenant ?? null });
    },
    /** Translates one key as a template would (`{{ key | t: values }}`), for a locale and a tenant: what a message would say. */
    async translate(key: string, options: { locale?: string; tenant?: string; values?: Record<string, unknown> } = {}): Promise<string> {
      const source = catalogSource(ctx.options.translations, await listCatalogs(storage.records, env)) ?? (() => undefined);
      return translator(source, { locale: options.locale ?? ctx.options.defaultLocale, defaultLocale: ctx.options.defaultLocale, tenant: options.tenant ?? null }).t(key, options.values);
    },
  };
}
