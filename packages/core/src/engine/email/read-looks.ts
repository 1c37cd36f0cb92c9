import { brandOf, type EmailLook } from '../../email/email-look.js';
import type { RecordStore } from '../../records/record-store.js';
import type { EngineOptions } from '../context.js';
import { catalogSource, listCatalogs } from '../translations/catalog-records.js';
import type { CatalogEntries } from '../../translations/translator.js';
import { readLinkSecrets } from '../links/link-secrets.js';
import { categoriesByKey } from '../categories/category-records.js';
import { brandKey, listLayouts, listPartials, readBrands } from './look-records.js';
import type { LookNeeds } from './look-needs.js';

export const NO_LOOK: EmailLook = { brand: null, layouts: new Map() };

/**
 * The looks of a batch's messages, read once for the batch, as far as `needs` says its messages can
 * use them: the environment's brand and these tenants', its translation catalogs, and (when emails
 * may be sent) its layouts and partials; the email components registered in code beside them.
 */
export async function readLooks(records: RecordStore, env: string, tenants: readonly string[], needs: LookNeeds, options: Pick<EngineOptions, 'links' | 'translations' | 'defaultLocale' | 'emailComponents'>): Promise<(tenantId: string | null | undefined) => EmailLook> {
  const { links, emailComponents: components } = options;
  const brands = needs.brands ? await readBrands(records, env, tenants) : new Map();
  const layouts = needs.layouts ? new Map((await listLayouts(records, env)).map((l) => [l.identifier, l] as const)) : new Map();
  const partials = needs.layouts ? new Map((await listPartials(records, env)).map((p) => [p.identifier, p.content] as const)) : undefined;
  // The engine makes the secret before its jobs first run (and `preferences.link` on first use).
  const secrets = links ? await readLinkSecrets(records, env) : null;
  const signing = links && secrets ? { baseUrl: links.baseUrl, mailto: links.mailto, secret: secrets.current } : undefined;
  const categories = signing ? await categoriesByKey(records, env) : undefined;
  const source = catalogSource(options.translations, needs.catalogs ? await listCatalogs(records, env) : []);
  const translations = source && { source, defaultLocale: options.defaultLocale, trees: new Map<string, CatalogEntries>() };
  const looks = new Map<string, EmailLook>();
  return (tenantId) => {
    const key = brandKey(tenantId ?? undefined);
    let look = looks.get(key);
    if (!look) {
      look = { brand: brandOf(brands.get(brandKey(undefined)) ?? null, tenantId ? brands.get(key) ?? null : null), layouts, ...(partials && { partials }), ...(signing && { links: signing }), ...(categories && { categories }), ...(translations && { translations }), ...(components && { components }) };
      looks.set(key, look);
    }
    return look;
  };
}
