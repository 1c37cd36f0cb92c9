import pluralForms from '@tannin/plural-forms';

/** One branch of an ICU plural: a CLDR category (`one`) or an exact number (`=0`), and the gettext form it takes. */
export interface PluralBranch {
  readonly selector: string;
  readonly form: number;
}

export type PluralMapping = { readonly ok: true; readonly forms: number; readonly branches: readonly PluralBranch[] } | { readonly ok: false; readonly reason: string };

const CLDR_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
/** Whole numbers enough to meet every integer category of every CLDR locale (`many` of French is 1,000,000). */
const SAMPLES = [...Array.from({ length: 201 }, (_, n) => n), 1_000, 10_000, 100_000, 1_000_000, 2_000_000, 10_000_000];
/** Numbers gettext sets apart that CLDR does not (`n==0 ? 0 : …` in English) become `=n` branches, a few at most. */
const MAX_EXACT = 3;

/**
 * How a file's gettext plural forms (its `Plural-Forms` header, evaluated without `eval`) map to the
 * CLDR categories ICU selects by in `locale`: each category takes the form gettext gives its
 * numbers, and a number gettext sets apart becomes an exact `=n` branch. A category only fractions
 * reach (Russian's `other`) takes the last form. Refused when the two rules disagree beyond that.
 */
export function pluralMapping(header: string | undefined, locale: string): PluralMapping {
  if (header === undefined) return { ok: false, reason: 'the file has no Plural-Forms header to read them by' };
  const rule = /nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+)/.exec(header);
  if (!rule) return { ok: false, reason: `the Plural-Forms header "${header}" is not "nplurals=N; plural=EXPRESSION;"` };
  const forms = Number(rule[1]);
  let formOf: (n: number) => number;
  try {
    formOf = pluralForms(rule[2]!.trim()) as (n: number) => number;
  } catch (error) {
    return { ok: false, reason: `the Plural-Forms expression "${rule[2]}" does not parse: ${error instanceof Error ? error.message : String(error)}` };
  }
  const cldr = new Intl.PluralRules(locale);
  const byCategory = new Map<string, Map<number, number[]>>();
  for (const n of SAMPLES) {
    const form = formOf(n);
    if (!Number.isInteger(form) || form < 0 || form >= forms) return { ok: false, reason: `the Plural-Forms expression "${rule[2]!.trim()}" gives ${form} for n = ${n}, not a form from 0 to ${forms - 1}` };
    const category = cldr.select(n);
    const numbers = byCategory.get(category) ?? new Map<number, number[]>();
    byCategory.set(category, numbers);
    numbers.set(form, [...(numbers.get(form) ?? []), n]);
  }
  const exact: PluralBranch[] = [];
  const branches: PluralBranch[] = [];
  const categories = new Set(cldr.resolvedOptions().pluralCategories as string[]);
  for (const category of CLDR_ORDER.filter((c) => categories.has(c))) {
    const numbers = byCategory.get(category);
    if (!numbers) {
      branches.push({ selector: category, form: forms - 1 });
      continue;
    }
    // The form most of the category's numbers take is the category's; the others are exceptions.
    const [main, ...others] = [...numbers].sort((a, b) => b[1].length - a[1].length);
    branches.push({ selector: category, form: main![0] });
    for (const [form, ns] of others) exact.push(...ns.map((n) => ({ selector: `=${n}`, form })));
  }
  if (exact.length > MAX_EXACT || exact.some((b) => Number(b.selector.slice(1)) > 200)) {
    return { ok: false, reason: `the Plural-Forms "${rule[0].trim()}" do not match the plural rules of "${locale}" (Unicode CLDR, which ICU messages follow): give the file the Plural-Forms of its language` };
  }
  return { ok: true, forms, branches: [...exact.sort((a, b) => Number(a.selector.slice(1)) - Number(b.selector.slice(1))), ...branches] };
}

/** A gettext entry's plural forms as one ICU message on `count`: `{count, plural, one {…} other {…}}`. */
export const icuPlural = (mapping: Extract<PluralMapping, { ok: true }>, texts: readonly string[]) =>
  `{count, plural, ${mapping.branches.map((b) => `${b.selector} {${texts[b.form]}}`).join(' ')}}`;
