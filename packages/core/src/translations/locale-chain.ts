/** A catalog's place: a locale, for the environment (tenant null) or for one tenant. */
export interface CatalogRef {
  readonly tenant: string | null;
  readonly locale: string;
}

// Intl.Locale is slow to make, and a process sees a handful of tags: each is canonicalized once.
const canonical = new Map<string, string>();

/** `pt_BR` and `pt-br` as `pt-BR`; an unknown spelling as given. */
export function canonicalLocale(tag: string): string {
  let known = canonical.get(tag);
  if (known === undefined) {
    try {
      known = new Intl.Locale(tag.replace(/_/g, '-')).toString();
    } catch {
      known = tag;
    }
    if (canonical.size < 10_000) canonical.set(tag, known);
  }
  return known;
}

/** `pt-BR` → [`pt-BR`, `pt`]; `zh-Hant-TW` → [`zh-Hant-TW`, `zh-Hant`, `zh`]. */
export function localeAndParents(tag: string): string[] {
  const parts = canonicalLocale(tag).split('-');
  return parts.map((_, i) => parts.slice(0, parts.length - i).join('-'));
}

/**
 * Where a key is looked for, first match wins: the tenant's catalogs of the locale and its parents,
 * then the environment's, then (tenant's, environment's) the default locale's and its parents.
 * `pt-BR` with default `en` for tenant `acme`: acme pt-BR, acme pt, pt-BR, pt, acme en, en.
 */
export function catalogChain(locale: string, defaultLocale: string, tenant: string | null): CatalogRef[] {
  const chain: CatalogRef[] = [];
  const seen = new Set<string>();
  const add = (tenantOf: string | null, tag: string) => {
    const key = `${tenantOf ?? ''}\u0000${tag}`;
    if (seen.has(key)) return;
    seen.add(key);
    chain.push({ tenant: tenantOf, locale: tag });
  };
  for (const tags of [localeAndParents(locale), localeAndParents(defaultLocale)]) {
    if (tenant !== null) for (const tag of tags) add(tenant, tag);
    for (const tag of tags) add(null, tag);
  }
  return chain;
}
