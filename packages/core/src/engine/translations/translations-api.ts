import { notFound } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { currentActor } from '../audit/actor.js';
import {
  catalogHistoryQuerySchema,
  catalogRefSchema,
  catalogWriteOptionsSchema,
  poImportInputSchema,
  writeOptionsSchema,
  type CatalogHistoryQuery,
  type CatalogRevision,
  type CatalogWriteOptions,
  type PoImport,
  type TranslationCatalog,
  type TranslationCatalogInput,
  type WriteOptions,
} from '../../schemas/index.js';
import { catalogName } from '../../revisions/kinds.js';
import { poEntries } from '../../translations/po-catalog.js';
import { canonicalLocale } from '../../translations/locale-chain.js';
import { mergeCatalogs, translator, type CatalogEntries, type CatalogSource, type Translator } from '../../translations/translator.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { historyApi, type RevisionDiff } from '../revisions/history-api.js';
import { lastRevisionNumber } from '../revisions/revision-records.js';
import { CATALOG_HISTORY } from '../revisions/revision-kinds.js';
import { TRANSLATIONS, catalogKey, catalogSource, listCatalogs } from './catalog-records.js';
import { buildCatalog, checkCatalog, getCatalog, saveCatalog } from './catalog-writes.js';

/** A catalog's key from a locale and options naming its tenant, checked (naming the field). */
function keyOf(locale: string, options: object): string {
  const ref = parseInput(catalogRefSchema, { locale, ...options }, 'translations reference');
  return catalogKey({ tenant: ref.tenant ?? null, locale: ref.locale });
}

/**
 * Translation catalogs per locale, for the environment or one tenant, stored as records (over the
 * catalogs given in code). Templates translate with `{{ 'key' | t: name: value }}` or `{{ t.key }}`.
 * Each change of a stored catalog is kept as a revision (`history`, `diff`, `rollback`).
 */
export function translationsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  function write(input: unknown, by: string, restores?: number): Promise<TranslationCatalog> {
    const parsed = checkCatalog(input);
    return storage.transaction(async (tx) => {
      const stored = await getCatalog(tx.records, env, { tenant: parsed.tenant ?? null, locale: parsed.locale });
      return saveCatalog(ctx, tx, buildCatalog(parsed, stored, ctx.now()), stored, by, restores);
    });
  }
  async function upsert(input: TranslationCatalogInput, options: WriteOptions = {}): Promise<TranslationCatalog> {
    const { by } = parseInput(writeOptionsSchema, options, 'translations write options');
    return write(input, by ?? currentActor());
  }
  const revisions = historyApi(ctx, CATALOG_HISTORY, {
    async idOf(key) {
      const [tenant = '', locale = ''] = key.split('\u0001');
      const ref = { tenant: tenant === '' ? null : tenant, locale };
      if ((await getCatalog(storage.records, env, ref)) || (await lastRevisionNumber(storage.records, env, CATALOG_HISTORY, key)) > 0) return key;
      throw notFound('translations', catalogName(ref));
    },
    restore: (old, by, restores) => write({ locale: old.locale, entries: old.entries, ...(old.tenant !== null && { tenant: old.tenant }) }, by, restores),
  });
  return {
    /**
     * Stores a locale's catalog (the environment's, or a tenant's), replacing the one stored before.
     * Each change stores a revision recorded as made `by` (default `code`); saving what is stored changes nothing.
     */
    upsert,
    /**
     * Stores a gettext PO file as a locale's catalog (replacing the one stored before, as `upsert`
     * does): msgids are keys, a msgctxt their first part, plural entries ICU plurals on `count`.
     * Fuzzy and untranslated entries are left out and listed; an entry that cannot be a catalog
     * text refuses the whole file, naming it, and nothing is stored.
     */
    async importPo(locale: string, po: string, options: { tenant?: string; by?: string } = {}): Promise<PoImport> {
      const parsed = parseInput(poImportInputSchema, { locale, po, ...options }, 'PO import');
      const made = await poEntries(parsed.po, canonicalLocale(parsed.locale));
      const catalog = await upsert({ locale: parsed.locale, entries: made.entries, ...(parsed.tenant !== undefined && { tenant: parsed.tenant }) }, parsed.by === undefined ? {} : { by: parsed.by });
      return { catalog, imported: made.imported, skipped: made.skipped };
    },
    get: (locale: string, options: { tenant?: string } = {}): Promise<TranslationCatalog | null> => getCatalog(storage.records, env, { tenant: options.tenant ?? null, locale }),
    /** Every stored catalog of the environment. */
    list: (): Promise<TranslationCatalog[]> => listCatalogs(storage.records, env),
    /** Removes a stored catalog; its revisions stay readable. */
    async delete(locale: string, options: { tenant?: string } = {}): Promise<void> {
      await storage.transaction(async (tx) => {
        if ((await tx.records.delete(env, TRANSLATIONS, [catalogKey({ tenant: options.tenant ?? null, locale })])) === 0) throw notFound('translations', `${locale}${options.tenant ? ` of tenant ${options.tenant}` : ''}`);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'translations', action: 'deleted', target: `${locale}${options.tenant ? ` of tenant ${options.tenant}` : ''}` }]);
      });
    },
    /** A catalog's revisions, newest first (`limit`, default 50, at most 500; `tenant` for a tenant's); a deletion keeps them. */
    async history(locale: string, query: CatalogHistoryQuery = {}): Promise<CatalogRevision[]> {
      const { tenant, limit } = parseInput(catalogHistoryQuerySchema, query, 'history query');
      return revisions.history(keyOf(locale, tenant === undefined ? {} : { tenant }), { limit });
    },
    /** One revision of a catalog, or null when it has none of that number. */
    revision: async (locale: string, revision: number, options: { tenant?: string } = {}): Promise<CatalogRevision | null> => revisions.revision(keyOf(locale, options), revision),
    /** What changed from revision `from` to `to`, entry by entry (`entries.welcome.title`). */
    diff: async (locale: string, from: number, to: number, options: { tenant?: string } = {}): Promise<RevisionDiff> => revisions.diff(keyOf(locale, options), from, to),
    /** Makes a catalog what it was at `revision`: a new revision equal to it (nothing when it is that already). */
    async rollback(locale: string, revision: number, options: CatalogWriteOptions = {}): Promise<TranslationCatalog> {
      const { tenant, by } = parseInput(catalogWriteOptionsSchema, options, 'rollback options');
      return revisions.rollback(keyOf(locale, tenant === undefined ? {} : { tenant }), revision, by === undefined ? {} : { by });
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
