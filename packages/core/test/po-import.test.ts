import { describe, expect, it } from 'vitest';
import { isTidingsError } from '../src/errors.js';
import { poEntries } from '../src/translations/po-catalog.js';
import { icuPlural, pluralMapping } from '../src/translations/po-plurals.js';
import { translator, type CatalogEntries } from '../src/translations/translator.js';

const header = (language: string, pluralForms: string) => `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: ${language}\\n"
"Plural-Forms: ${pluralForms}\\n"
`;

const RUSSIAN = 'nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);';

/** What a template's `t` gives for a key of these entries in this locale. */
const say = (entries: CatalogEntries, locale: string, key: string, values: Record<string, unknown> = {}) =>
  translator((ref) => (ref.locale === locale ? entries : undefined), { locale, defaultLocale: locale, tenant: null }).t(key, values);

/** The issues a refused PO file names. */
async function refusal(po: string, locale = 'en') {
  const error = await poEntries(po, locale).catch((e: unknown) => e);
  expect(isTidingsError(error, 'validation_failed'), String(error)).toBe(true);
  return (error as { issues: { path: string; message: string }[] }).issues;
}

describe('PO files as translation catalogs', () => {
  it('msgids are keys, nested at their dots; a msgctxt is the key\'s first part; multi-line and escaped strings are read as gettext writes them', async () => {
    const po = `${header('pt_BR', 'nplurals=2; plural=(n > 1);')}
msgid "welcome.title"
msgstr "Olá, {name}"

msgctxt "invoice"
msgid "subject"
msgstr ""
"Sua fatura "
"está pronta"

msgctxt "invoice"
msgid "quote"
msgstr "Diga \\"sim\\"\\nagora"
`;
    const made = await poEntries(po, 'pt-BR');
    expect(made.entries).toEqual({ welcome: { title: 'Olá, {name}' }, invoice: { subject: 'Sua fatura está pronta', quote: 'Diga "sim"\nagora' } });
    expect(made).toMatchObject({ imported: 3, skipped: [] });
    expect(say(made.entries, 'pt-BR', 'welcome.title', { name: 'Ana' })).toBe('Olá, Ana');
  });

  it('plural entries become ICU plurals on count, each CLDR category taking the form gettext gives its numbers', async () => {
    const po = `${header('ru', RUSSIAN)}
msgid "files"
msgid_plural "files"
msgstr[0] "# файл"
msgstr[1] "# файла"
msgstr[2] "# файлов"
`;
    const { entries } = await poEntries(po, 'ru');
    expect(entries).toEqual({ files: '{count, plural, one {# файл} few {# файла} many {# файлов} other {# файлов}}' });
    expect([1, 3, 5, 11, 21, 22, 25].map((count) => say(entries, 'ru', 'files', { count }))).toEqual(['1 файл', '3 файла', '5 файлов', '11 файлов', '21 файл', '22 файла', '25 файлов']);
    const french = await poEntries(`${header('fr', 'nplurals=2; plural=(n > 1);')}\nmsgid "n"\nmsgid_plural "n"\nmsgstr[0] "{count} fichier"\nmsgstr[1] "{count} fichiers"\n`, 'fr');
    expect([0, 1, 2, 1_000_000].map((count) => say(french.entries, 'fr', 'n', { count }))).toEqual(['0 fichier', '1 fichier', '2 fichiers', '1000000 fichiers']);
    const japanese = await poEntries(`${header('ja', 'nplurals=1; plural=0;')}\nmsgid "n"\nmsgid_plural "n"\nmsgstr[0] "{count}件"\n`, 'ja');
    expect(japanese.entries).toEqual({ n: '{count, plural, other {{count}件}}' });
  });

  it('a number gettext sets apart that CLDR does not becomes an exact branch; rules that disagree more are refused by name', () => {
    const zero = pluralMapping('nplurals=3; plural=(n==0 ? 0 : n==1 ? 1 : 2);', 'en');
    expect(zero.ok && icuPlural(zero, ['no files', 'one file', '# files'])).toBe('{count, plural, =0 {no files} one {one file} other {# files}}');
    expect(pluralMapping('nplurals=2; plural=(n%3 != 0);', 'en')).toMatchObject({ ok: false, reason: expect.stringContaining('do not match the plural rules of "en"') });
    expect(pluralMapping('nplurals=2; plural=(n + 5);', 'en')).toMatchObject({ ok: false, reason: expect.stringContaining('not a form from 0 to 1') });
    expect(pluralMapping('plural=n;', 'en')).toMatchObject({ ok: false, reason: expect.stringContaining('is not "nplurals=N; plural=EXPRESSION;"') });
    expect(pluralMapping(undefined, 'en')).toMatchObject({ ok: false, reason: expect.stringContaining('no Plural-Forms header') });
  });

  it('fuzzy and untranslated entries are left out and listed; obsolete ones are ignored', async () => {
    const po = `${header('de', 'nplurals=2; plural=(n != 1);')}
msgid "kept"
msgstr "Behalten"

#, fuzzy
msgid "guess"
msgstr "Vermutung"

msgid "todo"
msgstr ""

msgid "half"
msgid_plural "half"
msgstr[0] "eine"
msgstr[1] ""

#~ msgid "old"
#~ msgstr "Alt"
`;
    const made = await poEntries(po, 'de');
    expect(made.entries).toEqual({ kept: 'Behalten' });
    expect(made.imported).toBe(1);
    expect(made.skipped).toEqual([
      { key: 'guess', reason: 'fuzzy' },
      { key: 'todo', reason: 'untranslated' },
      { key: 'half', reason: 'untranslated' },
    ]);
  });

  it('refuses, naming the entry: a key both a text and a group, an empty key part, a text that is not ICU, plural forms without a header; and the file: bad syntax, another language', async () => {
    const en = header('en', 'nplurals=2; plural=(n != 1);');
    expect(await refusal(`${en}\nmsgid "a"\nmsgstr "A"\n\nmsgid "a.b"\nmsgstr "AB"\n`)).toEqual([{ path: 'entries.a.b', message: 'msgid "a.b": "a" is a text, so no key can start with "a."' }]);
    expect(await refusal(`${en}\nmsgid "a.b"\nmsgstr "AB"\n\nmsgid "a"\nmsgstr "A"\n`)).toEqual([{ path: 'entries.a', message: 'msgid "a": "a" is a group of texts (keys start with "a.") and cannot be a text too' }]);
    expect(await refusal(`${en}\nmsgid "a"\nmsgstr "A"\n\nmsgctxt "a"\nmsgid "b"\nmsgstr "AB"\n`)).toEqual([{ path: 'entries.a.b', message: 'msgctxt "a" msgid "b": "a" is a text, so no key can start with "a."' }]);
    expect(await refusal(`${en}\nmsgid "a..b"\nmsgstr "x"\n`)).toEqual([{ path: 'entries.a..b', message: expect.stringContaining('msgid "a..b": a key\'s parts') }]);
    expect(await refusal(`${en}\nmsgctxt "mail"\nmsgid "hi"\nmsgstr "Hi {name"\n`)).toEqual([{ path: 'entries.mail.hi', message: expect.stringMatching(/^msgctxt "mail" msgid "hi": is not an ICU MessageFormat text/) }]);
    const noHeader = 'msgid ""\nmsgstr "Language: en\\n"\n\nmsgid "n"\nmsgid_plural "n"\nmsgstr[0] "one"\n';
    expect(await refusal(noHeader)).toEqual([{ path: 'entries.n', message: 'msgid "n" has plural forms, and the file has no Plural-Forms header to read them by' }]);
    expect(await refusal(`${en}\nmsgid "n"\nmsgid_plural "n"\nmsgstr[0] "one"\n`)).toEqual([{ path: 'po', message: expect.stringContaining('Expected to find 2 forms but got 1') }]);
    expect(await refusal(`${en}\nmsgid "dup"\nmsgstr "1"\n\nmsgid "dup"\nmsgstr "2"\n`)).toEqual([{ path: 'po', message: expect.stringContaining('Duplicate msgid') }]);
    expect(await refusal(`${en}\nmsgid "open\nmsgstr "x"\n`)).toEqual([{ path: 'po', message: expect.stringContaining('is not a valid PO file') }]);
    expect(await refusal(en, 'de')).toEqual([{ path: 'po', message: 'its Language header is "en", another language than "de"' }]);
  });
});
