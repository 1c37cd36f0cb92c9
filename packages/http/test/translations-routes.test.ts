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
