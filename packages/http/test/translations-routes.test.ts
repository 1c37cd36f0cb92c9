import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

describe('translation catalogs over HTTP', () => {
  it('PUT stores a locale (and a tenant\'s), GET reads it back, the list has both, DELETE removes one; a bad catalog is a 422 naming the field and stores nothing', async () => {
    const { request, a } = await setup();
    await a.tenants.upsert({ identifier: 'acme' });
    const put = await request('PUT', '/v1/translations/pt-BR', { welcome: { title: 'Olá, {name}' } });
    expect(put.status).toBe(200);
    expect((await put.json()).data).toMatchObject({ locale: 'pt-BR', tenant: null, entries: { welcome: { title: 'Olá, {name}' } } });
    expect((await request('PUT', '/v1/translations/pt_BR?tenant=acme', { welcome: { title: 'Oi' } })).status).toBe(200);
    expect((await (await request('GET', '/v1/translations/pt-BR?tenant=acme')).json()).data.entries).toEqual({ welcome: { title: 'Oi' } });
    expect(((await (await request('GET', '/v1/translations')).json()).data as { tenant: string | null }[]).map((c) => c.tenant).sort()).toEqual(['acme', null].sort());
    const bad = await request('PUT', '/v1/translations/en', { welcome: { title: 3 } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('welcome.title');
    expect(await a.translations.get('en')).toBeNull();
    expect((await request('DELETE', '/v1/translations/pt-BR')).status).toBe(204);
    expect((await request('GET', '/v1/translations/pt-BR')).status).toBe(404);
    expect(await a.translations.translate('welcome.title', { locale: 'pt-BR', tenant: 'acme' })).toBe('Oi');
  });
});

const PO = `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: pt_BR\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

msgctxt "welcome"
msgid "title"
msgstr "Olá, {name}"

msgid "files"
msgid_plural "files"
msgstr[0] "# arquivo"
msgstr[1] "# arquivos"

msgid "later"
msgstr ""
`;

describe('PO files over HTTP', () => {
  it("PUT /v1/translations/{locale}/po stores the file (the body, as text) as the locale's catalog, a tenant's with ?tenant=; a bad entry is a 422 naming it and stores nothing; /openapi.json documents the body", async () => {
    const { request, a, app } = await setup();
    await a.tenants.upsert({ identifier: 'acme' });
    const put = await request('PUT', '/v1/translations/pt-BR/po', PO, { 'content-type': 'text/x-gettext-translation' });
    expect(put.status).toBe(200);
    const answer = (await put.json()).data;
    expect(answer).toMatchObject({ imported: 2, skipped: [{ key: 'later', reason: 'untranslated' }], catalog: { locale: 'pt-BR', tenant: null } });
    expect(answer.catalog.entries.welcome).toEqual({ title: 'Olá, {name}' });
    expect(await a.translations.translate('files', { locale: 'pt-BR', values: { count: 2 } })).toBe('2 arquivos');
    expect(await a.translations.translate('files', { locale: 'pt-BR', values: { count: 1 } })).toBe('1 arquivo');
    // Any content type is read as the file's text (curl --data-binary sends application/x-www-form-urlencoded).
    expect((await request('PUT', '/v1/translations/pt-BR/po?tenant=acme', PO.replace('Olá', 'Oi'), { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200);
    expect(await a.translations.translate('welcome.title', { locale: 'pt-BR', tenant: 'acme', values: { name: 'Ana' } })).toBe('Oi, Ana');
    const bad = await request('PUT', '/v1/translations/pt-BR/po', PO.replace('"Olá, {name}"', '"Olá, {name"'), { 'content-type': 'text/plain' });
    expect(bad.status).toBe(422);
    const refusal = JSON.stringify(await bad.json());
    expect(refusal).toContain('entries.welcome.title');
    expect(refusal).toContain('msgctxt \\"welcome\\" msgid \\"title\\"');
    expect((await a.translations.get('pt-BR'))?.entries).toMatchObject({ welcome: { title: 'Olá, {name}' } });
    expect((await request('PUT', '/v1/translations/de/po', PO, { 'content-type': 'text/plain' })).status).toBe(422);
    expect((await request('PUT', '/v1/translations/pt-BR/po', undefined)).status).toBe(422);
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> };
    expect(Object.keys(doc.paths['/v1/translations/{locale}/po']!['put']!.requestBody!.content)).toEqual(['text/x-gettext-translation']);
  });
});

describe('layouts, partials, brands and previews over HTTP', () => {
  it('store and read each; a layout without its slot is a 422 naming content; the preview renders the email in the default layout and brand; unknown ones are 404s', async () => {
    const { request, a } = await setup();
    expect((await request('POST', '/v1/layouts', { identifier: 'bad', content: '<p>no slot</p>' })).status).toBe(422);
    const layout = await request('POST', '/v1/layouts', { identifier: 'card', content: "<html><body><main>{{ content }}</main>{% render 'sig', name: brand.name %}</body></html>" });
    expect(layout.status).toBe(201);
    expect((await request('POST', '/v1/partials', { identifier: 'sig', content: '<p>— {{ name }}</p>' })).status).toBe(201);
    expect((await request('POST', '/v1/layouts/card/default')).status).toBe(200);
    expect((await (await request('GET', '/v1/layouts/card')).json()).data).toMatchObject({ identifier: 'card', isDefault: true, revision: 2 });
    expect((await request('PUT', '/v1/brand', { name: 'Acme', colors: { primary: '#d92d20' } })).status).toBe(200);
    expect((await request('PUT', '/v1/brand', { colors: { primary: 'red; x' } })).status).toBe(422);
    await a.tenants.upsert({ identifier: 'globex' });
    expect((await request('PUT', '/v1/tenants/globex/brand', { name: 'Globex' })).status).toBe(200);
    expect((await (await request('GET', '/v1/tenants/globex/brand')).json()).data).toMatchObject({ tenant: 'globex', name: 'Globex' });
    await a.workflows.upsert({ name: 'Hello', triggers: [{ identifier: 'hello' }], steps: [{ template: { type: 'email', subject: 'Hi {{ subscriber.firstName }}', content: '<p>Hello</p>' } }] });
    const preview = await request('POST', '/v1/workflows/hello/preview', { subscriber: { subscriberId: 'sam', firstName: 'Sam' }, tenant: 'globex' });
    expect(preview.status).toBe(200);
    const step = (await preview.json()).data.steps[0];
    expect(step).toMatchObject({ channel: 'email', subject: 'Hi Sam', layoutId: 'card' });
    expect(step.html).toContain('<main><p>Hello</p></main><p>— Globex</p>');
    expect((await request('POST', '/v1/workflows/nope/preview', { subscriberId: 'x' })).status).toBe(404);
    expect((await request('GET', '/v1/partials/nope')).status).toBe(404);
    expect((await request('DELETE', '/v1/layouts/card')).status).toBe(204);
    expect((await request('GET', '/v1/layouts/card')).status).toBe(404);
    expect((await request('DELETE', '/v1/tenants/globex/brand')).status).toBe(204);
  });
});
