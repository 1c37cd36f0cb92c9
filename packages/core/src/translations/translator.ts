import { IntlMessageFormat } from 'intl-messageformat';
import { catalogChain, canonicalLocale, type CatalogRef } from './locale-chain.js';

/** A catalog: nested objects of message texts (ICU MessageFormat), e.g. `{ invoice: { due: 'Due {date}' } }`. */
export type CatalogEntries = { readonly [key: string]: string | CatalogEntries };

/** The catalog stored (or given in code) for a tenant (null: the environment) and a locale, if any. */
export type CatalogSource = (ref: CatalogRef) => CatalogEntries | undefined;

/** A key found in no catalog of the chain: the step fails, naming it. */
export class MissingTranslation extends Error {
  constructor(
    readonly key: string,
    locale: string,
  ) {
    super(`the translation "${key}" is missing (looked in ${locale}, its parents and the default locale)`);
    this.name = 'MissingTranslation';
  }
}

function lookup(entries: CatalogEntries | undefined, key: string): string | undefined {
  let node: string | CatalogEntries | undefined = entries;
  for (const part of key.split('.')) {
    if (node === undefined || typeof node === 'string' || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

// Parsing dominates formatting, and a workflow uses a handful of texts: parsed forms are kept (bounded).
const formats = new Map<string, IntlMessageFormat>();
const MAX_FORMATS = 5_000;
function formatted(text: string, locale: string, values: Record<string, unknown>): string {
  const key = `${locale}\u0000${text}`;
  let format = formats.get(key);
  if (!format) {
    format = new IntlMessageFormat(text, locale);
    if (formats.size >= MAX_FORMATS) formats.delete(formats.keys().next().value as string);
    formats.set(key, format);
  }
  return String(format.format(values as Record<string, string | number | boolean | Date | null | undefined>));
}

/** Translates the keys of one walk (one subscriber, one locale, one tenant), noting those that fell back. */
export interface Translator {
  readonly locale: string;
  /** The text of `key` formatted with `values` (plurals, selects, numbers, dates in the text's own locale). */
  t(key: string, values?: Record<string, unknown>): string;
  /** The catalogs of the chain merged, the most specific over the rest: Novu's `{{ t.key }}` spelling reads it. */
  tree(): CatalogEntries;
  /** Keys translated since the last call that were not in the walk's own locale's catalogs. */
  takeFallbacks(): string[];
  /** Whether any key was translated since the last `takeFallbacks`. */
  readonly used: boolean;
}

/** `over` laid on `base` key by key, at every depth. */
export const mergeCatalogs = (base: CatalogEntries, over: CatalogEntries): CatalogEntries => {
  const out: Record<string, string | CatalogEntries> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const before = out[key];
    out[key] = typeof value === 'object' && typeof before === 'object' ? mergeCatalogs(before, value) : value;
  }
  return out;
};

/**
 * `trees`, when given, keeps the merged catalogs per chain for the walks that share them (a batch's),
 * so Novu's `{{ t.key }}` costs one merge per locale and tenant, not one per walk.
 */
export function translator(source: CatalogSource, options: { locale: string; defaultLocale: string; tenant: string | null; trees?: Map<string, CatalogEntries> }): Translator {
  const locale = canonicalLocale(options.locale);
  const chain = catalogChain(locale, options.defaultLocale, options.tenant);
  const own = new Set(chain.filter((ref) => ref.locale === locale).map((ref) => `${ref.tenant ?? ''}\u0000${ref.locale}`));
  let fallbacks: string[] = [];
  let used = false;
  let merged: CatalogEntries | undefined;
  return {
    locale,
    get used() {
      return used;
    },
    t(key, values = {}) {
      used = true;
      for (const ref of chain) {
        const text = lookup(source(ref), key);
        if (text === undefined) continue;
        if (!own.has(`${ref.tenant ?? ''}\u0000${ref.locale}`) && !fallbacks.includes(key)) fallbacks.push(key);
        return formatted(text, ref.locale, values);
      }
      throw new MissingTranslation(key, locale);
    },
    tree() {
      if (merged) return merged;
      const key = chain.map((ref) => `${ref.tenant ?? ''}\u0000${ref.locale}`).join('\u0001');
      merged = options.trees?.get(key) ?? [...chain].reverse().reduce<CatalogEntries>((acc, ref) => mergeCatalogs(acc, source(ref) ?? {}), {});
      options.trees?.set(key, merged);
      return merged;
    },
    takeFallbacks() {
      const taken = fallbacks;
      fallbacks = [];
      used = false;
      return taken;
    },
  };
}
