import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { translator, type CatalogEntries } from '../src/translations/translator.js';

const LANGUAGES = ['en', 'pt', 'ar', 'de'] as const;
const REGIONS = ['BR', 'PT', 'US', 'DE'] as const;
const KEYS = ['a', 'b.c', 'b.d', 'e.f.g'] as const;

const tagArb = fc.tuple(fc.constantFrom(...LANGUAGES), fc.option(fc.constantFrom(...REGIONS), { nil: undefined })).map(([l, r]) => (r ? `${l}-${r}` : l));
const placeArb = fc.tuple(fc.option(fc.constant('acme'), { nil: null }), tagArb);

/** Nested entries for dotted keys: `b.c` → { b: { c } }. */
function entriesOf(keys: readonly string[], text: (key: string) => string): CatalogEntries {
  const root: Record<string, unknown> = {};
  for (const key of keys) {
    const parts = key.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = text(key);
  }
  return root as CatalogEntries;
}

/**
 * The order the docs promise, written out plainly: tenant+region, tenant+language, region, language,
 * then the same for the default locale.
 */
function modelOrder(locale: string, defaultLocale: string, tenant: string | null): [string | null, string][] {
  const order: [string | null, string][] = [];
  for (const tag of [locale, defaultLocale]) {
    const language = tag.split('-')[0]!;
    const tags = tag === language ? [tag] : [tag, language];
    if (tenant) for (const t of tags) order.push([tenant, t]);
    for (const t of tags) order.push([null, t]);
  }
  return order;
}

describe('translations against a reference model', () => {
  it('a key comes from the first catalog of the fallback chain that has it, is a fallback exactly when that catalog is not of the walk\'s own locale, and is missing only when no catalog of the chain has it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(placeArb, fc.subarray([...KEYS])), { maxLength: 8 }),
        tagArb,
        tagArb,
        fc.option(fc.constant('acme'), { nil: null }),
        fc.constantFrom(...KEYS),
        (catalogs, locale, defaultLocale, tenant, key) => {
          const byPlace = new Map<string, readonly string[]>();
          for (const [[t, tag], keys] of catalogs) byPlace.set(`${t ?? ''}|${tag}`, keys);
          const label = (t: string | null, tag: string) => `${t ?? 'env'}:${tag}`;
          const source = (ref: { tenant: string | null; locale: string }) => {
            const keys = byPlace.get(`${ref.tenant ?? ''}|${ref.locale}`);
            return keys ? entriesOf(keys, () => label(ref.tenant, ref.locale)) : undefined;
          };
          const found = modelOrder(locale, defaultLocale, tenant).find(([t, tag]) => byPlace.get(`${t ?? ''}|${tag}`)?.includes(key));
          const translate = translator(source, { locale, defaultLocale, tenant });
          if (!found) {
            expect(() => translate.t(key)).toThrow(`the translation "${key}" is missing`);
            return;
          }
          expect(translate.t(key)).toBe(label(found[0], found[1]));
          expect(translate.takeFallbacks()).toEqual(found[1] === locale ? [] : [key]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a plural picks the category the locale\'s plural rules (CLDR, as Intl.PluralRules has them) give the number', () => {
    const message = '{n, plural, zero {ZERO} one {ONE} two {TWO} few {FEW} many {MANY} other {OTHER}}';
    fc.assert(
      fc.property(fc.constantFrom('en', 'pt-BR', 'pt-PT', 'ar', 'pl', 'ru', 'cy', 'ja', 'fr'), fc.nat({ max: 1_000_000 }), (locale, n) => {
        const translate = translator(() => ({ m: message }), { locale, defaultLocale: 'en', tenant: null });
        expect(translate.t('m', { n })).toBe(new Intl.PluralRules(locale).select(n).toUpperCase());
      }),
      { numRuns: 500 },
    );
  });
});
