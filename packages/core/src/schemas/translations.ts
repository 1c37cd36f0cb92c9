import { z } from 'zod';
import { revisionAuthorSchema } from './revision.js';
import { localeSchema } from './trigger.js';

const MAX_DEPTH = 8;

/** A catalog's entries: nested objects whose leaves are ICU MessageFormat texts. */
export const catalogEntriesSchema: z.ZodType<{ [key: string]: unknown }> = z.record(z.string(), z.unknown()).superRefine((entries, ctx) => {
  const walk = (node: unknown, path: (string | number)[], depth: number) => {
    if (typeof node === 'string') return;
    if (depth > MAX_DEPTH || typeof node !== 'object' || node === null || Array.isArray(node)) {
      ctx.addIssue({ code: 'custom', path, message: depth > MAX_DEPTH ? `nests deeper than ${MAX_DEPTH} levels` : 'must be a text or an object of texts' });
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '' || key.includes('.')) ctx.addIssue({ code: 'custom', path: [...path, key], message: 'a key must be non-empty and hold no "." (nest objects instead)' });
      else walk(value, [...path, key], depth + 1);
    }
  };
  walk(entries, [], 0);
});

/** What `translations.upsert` stores. */
export const translationCatalogInputSchema = z.strictObject({
  locale: localeSchema,
  entries: catalogEntriesSchema,
  /** The tenant whose catalog this is; absent: the environment's. */
  tenant: z.string().trim().min(1, 'must not be empty').optional(),
});
export type TranslationCatalogInput = z.input<typeof translationCatalogInputSchema>;

/** A stored catalog. */
export interface TranslationCatalog {
  readonly locale: string;
  readonly tenant: string | null;
  readonly entries: { readonly [key: string]: unknown };
  /** Counted from 1, one more at each change (see `translations.history`). */
  readonly revision: number;
  readonly updatedAt: string;
}

/** What `translations.importPo` reads: a gettext PO file for a locale (the environment's, or a tenant's). */
export const poImportInputSchema = z.strictObject({
  locale: localeSchema,
  po: z.string().min(1, 'must not be empty').max(5_000_000, 'must be at most 5,000,000 characters'),
  tenant: z.string().trim().min(1, 'must not be empty').optional(),
  /** Who imports it, recorded with the catalog's revision. @default 'code' */
  by: revisionAuthorSchema.optional(),
});
export type PoImportInput = z.input<typeof poImportInputSchema>;

/** An entry of a PO file that was not imported: fuzzy, or without a translation (msgfmt leaves both out). */
export interface PoSkipped {
  readonly key: string;
  readonly reason: 'fuzzy' | 'untranslated';
}

/** What a PO import stored: the catalog (replacing the one before), how many texts, and what it left out. */
export interface PoImport {
  readonly catalog: TranslationCatalog;
  readonly imported: number;
  readonly skipped: readonly PoSkipped[];
}
