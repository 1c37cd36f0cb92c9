// Scripts written right to left, by language subtag (Intl.Locale's textInfo is not in every Node 20).
const RTL = new Set(['ar', 'arc', 'ckb', 'dv', 'fa', 'ha', 'he', 'iw', 'khw', 'ks', 'ku', 'ps', 'sd', 'syr', 'ug', 'ur', 'yi']);

const known = new Map<string, { lang: string; dir: 'ltr' | 'rtl' }>();

/** The `lang` and `dir` of an email in `locale` (a BCP 47 tag such as `pt-BR` or `ar`); `en` when it is not one. */
export function langOf(locale: string | null | undefined): { lang: string; dir: 'ltr' | 'rtl' } {
  const key = locale ?? '';
  let found = known.get(key);
  if (!found) {
    found = langOfTag(locale);
    if (known.size < 10_000) known.set(key, found);
  }
  return found;
}

function langOfTag(locale: string | null | undefined): { lang: string; dir: 'ltr' | 'rtl' } {
  let lang = 'en';
  try {
    if (locale) lang = new Intl.Locale(locale.replace(/_/g, '-')).toString();
  } catch {
    lang = 'en';
  }
  const language = lang.split('-')[0]!.toLowerCase();
  return { lang, dir: RTL.has(language) ? 'rtl' : 'ltr' };
}
