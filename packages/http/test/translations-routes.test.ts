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
