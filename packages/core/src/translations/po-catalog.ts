import type { GetTextTranslation } from 'gettext-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { TidingsError, type FieldIssue } from '../errors.js';
import { issuesText } from '../listed-issues.js';
import type { PoSkipped } from '../schemas/index.js';
import { canonicalLocale } from './locale-chain.js';
import { icuPlural, pluralMapping, type PluralMapping } from './po-plurals.js';
import type { CatalogEntries } from './translator.js';

/** A PO file's translations as a catalog, and the entries it left out. */
export interface PoEntries {
  readonly entries: CatalogEntries;
  readonly imported: number;
  readonly skipped: PoSkipped[];
}

type Tree = { [key: string]: string | Tree };

const named = (entry: GetTextTranslation) => `${entry.msgctxt ? `msgctxt "${entry.msgctxt}" ` : ''}msgid "${entry.msgid}"`;
const languageOf = (tag: string) => canonicalLocale(tag).split('-')[0]!.toLowerCase();

/**
 * A gettext PO file as a catalog of `locale`: each msgid is a key (`invoice.due` nests as the
 * catalog's keys do), its msgctxt, when it has one, the key's first part (`msgctxt "invoice"` +
 * `msgid "due"`); msgstr is the ICU MessageFormat text. Plural entries become
 * `{count, plural, one {…} other {…}}` (see `pluralMapping`). Fuzzy and untranslated entries are
 * left out (so the fallback chain answers for them), as msgfmt leaves them out. An entry that cannot
 * be a catalog text refuses the file, naming it.
 */
export async function poEntries(text: string, locale: string): Promise<PoEntries> {
  const { po } = await import('gettext-parser');
  const refuse = (issues: FieldIssue[]) => new TidingsError('validation_failed', `Invalid PO file: ${issuesText(issues)}`, { issues });
  let table: ReturnType<typeof po.parse>;
  try {
    table = po.parse(text, { validation: true });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const hint = /plural forms range/i.test(why) && !/Plural-Forms:/i.test(text) ? ' (the file has no Plural-Forms header)' : '';
    throw refuse([{ path: 'po', message: `is not a valid PO file: ${why}${hint}` }]);
  }
  const headers = table.headers ?? {};
  const language = headers['Language']?.trim();
  if (language && languageOf(language) !== languageOf(locale)) throw refuse([{ path: 'po', message: `its Language header is "${language}", another language than "${locale}"` }]);
  let plurals: PluralMapping | undefined;
  const entries: Tree = {};
  const skipped: PoSkipped[] = [];
  const issues: FieldIssue[] = [];
  let imported = 0;
  for (const [context, byId] of Object.entries(table.translations)) {
    for (const entry of Object.values(byId)) {
      if (entry.msgid === '' && context === '') continue; // the header
      const key = context ? `${context}.${entry.msgid}` : entry.msgid;
      const at = `entries.${key}`;
      if (key.split('.').some((part) => part.trim() === '')) {
        issues.push({ path: at, message: `${named(entry)}: a key's parts (between ".") must not be empty` });
        continue;
      }
      if (entry.comments?.flag?.split(/[\s,]+/).includes('fuzzy')) {
        skipped.push({ key, reason: 'fuzzy' });
        continue;
      }
      if (entry.msgstr.length === 0 || entry.msgstr.some((s) => s === '')) {
        skipped.push({ key, reason: 'untranslated' });
        continue;
      }
      let message = entry.msgstr[0]!;
      if (entry.msgid_plural !== undefined) {
        plurals ??= pluralMapping(headers['Plural-Forms'], locale);
        if (!plurals.ok) {
          issues.push({ path: at, message: `${named(entry)} has plural forms, and ${plurals.reason}` });
          continue;
        }
        message = icuPlural(plurals, entry.msgstr);
      }
      try {
        new IntlMessageFormat(message, locale);
      } catch (error) {
        issues.push({ path: at, message: `${named(entry)}: is not an ICU MessageFormat text (${error instanceof Error ? error.message : String(error)})` });
        continue;
      }
      const conflict = place(entries, key.split('.'), message);
      if (conflict) issues.push({ path: at, message: `${named(entry)}: ${conflict}` });
      else imported++;
    }
  }
  if (issues.length > 0) throw refuse(issues);
  return { entries, imported, skipped };
}

/** Sets the text at the path, or says why it cannot go there (a text and a group of texts under one key). */
function place(tree: Tree, path: readonly string[], text: string): string | null {
  let node = tree;
  for (const [i, part] of path.entries()) {
    const here = path.slice(0, i + 1).join('.');
    if (i === path.length - 1) {
      if (Object.hasOwn(node, part)) return typeof node[part] === 'string' ? `"${here}" is given twice` : `"${here}" is a group of texts (keys start with "${here}.") and cannot be a text too`;
      node[part] = text;
      return null;
    }
    const next = Object.hasOwn(node, part) ? node[part]! : (node[part] = {});
    if (typeof next === 'string') return `"${here}" is a text, so no key can start with "${here}."`;
    node = next;
  }
  return null;
}
