import { createTidings, type Provider, type ProviderMessage } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';

const BASE = 'https://notify.example.test';

/** Two environments on one storage, each sending email through a provider that keeps what it got. */
async function setup() {
  const storage = memoryStorage();
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const sent: ProviderMessage[] = [];
  const mail: Provider = { id: 'mailer', channel: 'email', send: async (m) => (sent.push(m), { id: `pm-${sent.length}` }) };
  const engine = (environmentId: string) => createTidings({ storage, clock, environmentId, providers: [mail], links: { baseUrl: BASE, mailto: 'unsubscribe@example.test' } });
  const a = engine('env-a');
  const b = engine('env-b');
  const app = createHttpApp({ environments: [{ tidings: a, apiKeys: ['key-a'] }, { tidings: b, apiKeys: ['key-b'] }] });
  for (const t of [a, b]) {
    await t.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
    await t.workflows.upsert({ name: 'Weekly digest', triggers: [{ identifier: 'weekly' }], steps: [{ template: { type: 'email', subject: 'Your week', content: '<p>News. <a href="{{ unsubscribeUrl }}">Unsubscribe</a> · <a href="{{ preferencesUrl }}">Preferences</a></p>' } }] });
    await t.workflows.upsert({ name: 'Password reset', critical: true, triggers: [{ identifier: 'reset' }], steps: [{ template: { type: 'email', subject: 'Reset', content: 'Reset it' } }] });
  }
  /** A request as a mail client or a browser makes it: no API key, no cookie. */
  const visit = (method: 'GET' | 'POST', url: string, form?: string) =>
    app.request(url.replace(BASE, ''), { method, ...(form !== undefined && { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }) });
  return { a, b, sent, clock, visit };
}

const headerUrl = (message: ProviderMessage) => /^<([^>]+)>/.exec(message.headers?.['List-Unsubscribe'] ?? '')?.[1];

describe('one-click unsubscribe (RFC 8058) and signed links', () => {
  it('an email carries List-Unsubscribe and List-Unsubscribe-Post; the one-click POST opts out of that workflow; the next trigger skips the email; a second POST changes nothing', async () => {
    const { a, sent, visit } = await setup();
    await a.trigger({ name: 'weekly', to: { subscriberId: 'ana', email: 'ana@x.test' } });
    await a.runDue();
    expect(sent).toHaveLength(1);
    const [first] = sent;
    expect(first!.headers).toEqual({ 'List-Unsubscribe': expect.stringMatching(/^<https:\/\/notify\.example\.test\/unsubscribe\/[\w-]+\.[\w-]+>, <mailto:unsubscribe@example\.test\?subject=unsubscribe>$/), 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    const url = headerUrl(first!)!;
    expect(first!.html).toContain(`href="${url}"`);
    expect(first!.html).toContain(`${BASE}/preferences/`);

    const oneClick = await visit('POST', url, 'List-Unsubscribe=One-Click');
    expect(oneClick.status).toBe(200);
    const prefs = await a.preferences.get('ana');
    expect(prefs.workflows.find((w) => w.workflow.identifier === 'weekly')?.channels.email).toBe(false);

    const again = await a.trigger({ name: 'weekly', to: 'ana' });
    await a.runDue();
    expect(sent).toHaveLength(1);
    expect((await a.explain(again.transactionId!)).flatMap((r) => r.entries)[0]).toMatchObject({ type: 'email', decision: 'skipped' });

    expect((await visit('POST', url, 'List-Unsubscribe=One-Click')).status).toBe(200);
    expect(await a.preferences.get('ana')).toEqual(prefs);
    expect((await a.preferences.unsubscribe(url.split('/').pop()!)).changed).toBe(false);
  });

  it('a GET only asks; the page button unsubscribes and offers the way back in, which resubscribes', async () => {
    const { a, visit } = await setup();
    await a.subscribers.upsert({ subscriberId: 'bo', email: 'bo@x.test' });
    const { url } = await a.preferences.link('bo', { purpose: 'unsubscribe', workflowId: 'weekly' });
    const asked = await visit('GET', url);
    expect(asked.status).toBe(200);
    expect(asked.headers.get('content-security-policy')).toContain("default-src 'none'");
    const askedHtml = await asked.text();
    expect(askedHtml).toContain('Stop receiving “Weekly digest” emails?');
    expect((await a.preferences.get('bo')).workflows.find((w) => w.workflow.identifier === 'weekly')?.channels.email).not.toBe(false);
    const done = await (await visit('POST', url, 'action=unsubscribe')).text();
    expect(done).toContain('You are unsubscribed');
    expect(done).toContain('value="resubscribe"');
    expect((await a.preferences.get('bo')).workflows.find((w) => w.workflow.identifier === 'weekly')?.channels.email).toBe(false);
    expect(await (await visit('POST', url, 'action=resubscribe')).text()).toContain('You are subscribed again');
    expect((await a.preferences.get('bo')).workflows.find((w) => w.workflow.identifier === 'weekly')?.channels.email).toBe(true);
  });

  it('a tampered, expired, other-environment, other-subscriber or rotated-away token is refused and changes nothing', async () => {
    const { a, b, clock, visit } = await setup();
    for (const t of [a, b]) await t.subscribers.upsert({ subscriberId: 'cy', email: 'cy@x.test' });
    await a.subscribers.upsert({ subscriberId: 'di', email: 'di@x.test' });
    const { token } = await a.preferences.link('cy', { purpose: 'unsubscribe', workflowId: 'weekly' });
    const [body, signature] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = (change: Record<string, unknown>) => `${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${signature}`;
    const before = { a: await a.preferences.get('cy'), b: await b.preferences.get('cy'), di: await a.preferences.get('di') };
    const tries = [
      [forged({ s: 'di' }), 403],
      [forged({ e: 'env-b' }), 403],
      [`${body}.${signature.slice(0, -2)}xx`, 403],
      ['not-a-token', 404],
    ] as const;
    for (const [bad, status] of tries) {
      const answer = await visit('POST', `/unsubscribe/${bad}`, 'List-Unsubscribe=One-Click');
      expect(answer.status, bad).toBe(status);
      await expect(a.preferences.unsubscribe(bad)).rejects.toMatchObject({ code: 'unauthorized' });
    }
    const expiring = await a.preferences.link('cy', { purpose: 'unsubscribe', workflowId: 'weekly', expiresIn: 3600 });
    clock.advance(3_601_000);
    expect((await visit('POST', expiring.url, 'List-Unsubscribe=One-Click')).status).toBe(403);
    expect(await (await visit('GET', expiring.url)).text()).toContain('the link has expired');
    // Rotating: the previous secret verifies while kept, and not after the next rotation.
    await a.preferences.rotateLinkSecret({ keepPrevious: true });
    await expect(a.preferences.openLink(token)).resolves.toMatchObject({ subscriberId: 'cy' });
    await a.preferences.rotateLinkSecret();
    await expect(a.preferences.openLink(token)).rejects.toMatchObject({ code: 'unauthorized' });
    expect({ a: await a.preferences.get('cy'), b: await b.preferences.get('cy'), di: await a.preferences.get('di') }).toEqual(before);
    // A critical workflow carries no headers and cannot be unsubscribed from by a link.
    await a.trigger({ name: 'reset', to: 'cy' });
    await a.runDue();
    await expect(a.preferences.link('cy', { purpose: 'unsubscribe' })).rejects.toThrow(/workflowId: an unsubscribe link names the workflow or category it opts out of/);
    const critical = await a.preferences.link('cy', { purpose: 'unsubscribe', workflowId: 'reset' });
    await expect(a.preferences.unsubscribe(critical.token)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('the preference page lists the workflows and channels the subscriber can change, without JavaScript; saving writes the same preferences the API reads', async () => {
    const { a, visit } = await setup();
    await a.subscribers.upsert({ subscriberId: 'ed', email: 'ed@x.test', locale: 'pt-BR' });
    await a.brands.upsert({ name: 'Acme', colors: { primary: '#d92d20' }, footer: 'Acme Inc.' });
    await a.translations.upsert({ locale: 'pt', entries: { tidings: { pages: { preferencesTitle: 'Preferências de notificação', channel: { email: 'E-mail' } } } } });
    const { url } = await a.preferences.link('ed');
    const html = await (await visit('GET', url)).text();
    // The page in the subscriber's language where a catalog has its texts, in English where none has.
    expect(html).toContain('<h1>Preferências de notificação</h1>');
    expect(html).toContain('<legend>All notifications</legend>');
    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain('<legend>Weekly digest</legend>');
    expect(html).toMatch(/<label for="w0-email"><input type="checkbox" id="w0-email" name="wf:weekly:email" value="on" checked> E-mail<\/label>/);
    expect(html).toContain('Always sent: Password reset.');
    expect(html).toContain('#d92d20');
    expect(html).not.toContain('<script');
    const saved = await (await visit('POST', url, 'shown=wf%3Aweekly%3Aemail')).text();
    expect(saved).toContain('Saved.');
    expect((await a.preferences.get('ed')).workflows.find((w) => w.workflow.identifier === 'weekly')?.channels.email).toBe(false);
  });

  it('categories: the page lists a category with its name and saves it; the one-click POST of a category email opts out of every workflow in it; each change is in the history with how it came', async () => {
    const { a, sent, visit } = await setup();
    const app = createHttpApp({ environments: [{ tidings: a, apiKeys: ['key-a'] }] });
    const api = (method: string, path: string, body?: unknown) => app.request(path, { method, headers: { authorization: 'ApiKey key-a', 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    expect((await api('PUT', '/v1/categories/marketing', { name: 'Offers', description: 'Sales and launches' })).status).toBe(200);
    const refused = await api('PUT', '/v1/categories/Bad%20Key', {});
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('category key');
    expect(((await (await api('GET', '/v1/categories')).json()) as { data: { key: string }[] }).data.map((c) => c.key)).toEqual(['marketing']);
    await a.workflows.upsert({ name: 'Spring sale', category: 'marketing', triggers: [{ identifier: 'sale' }], steps: [{ template: { type: 'email', subject: 'Sale', content: 'Sale!' } }] });
    await a.workflows.upsert({ name: 'Launch', category: 'marketing', triggers: [{ identifier: 'launch' }], steps: [{ template: { type: 'email', subject: 'Launch', content: 'New!' } }] });

    await a.trigger({ name: 'sale', to: { subscriberId: 'fay', email: 'fay@x.test' } });
    await a.runDue();
    const url = headerUrl(sent[0]!)!;
    expect(await (await visit('GET', url)).text()).toContain('Stop receiving “Offers” emails?');
    expect((await visit('POST', url, 'List-Unsubscribe=One-Click')).status).toBe(200);
    await a.trigger({ name: 'launch', to: 'fay' });
    await a.runDue();
    expect(sent).toHaveLength(1);

    const page = (await a.preferences.link('fay')).url;
    const html = await (await visit('GET', page)).text();
    expect(html).toContain('<legend>Offers</legend><p class="muted">Sales and launches</p>');
    expect(html).toMatch(/<input type="checkbox" id="c0-email" name="cat:marketing:email" value="on"> Email/);
    // Ticking the category back on (the other boxes as shown) changes that category only.
    await visit('POST', page, 'shown=global%3Aemail&global%3Aemail=on&shown=cat%3Amarketing%3Aemail&cat%3Amarketing%3Aemail=on&shown=wf%3Aweekly%3Aemail&wf%3Aweekly%3Aemail=on');
    expect((await a.preferences.get('fay')).categories.find((c) => c.key === 'marketing')?.channels.email).toBe(true);

    const history = ((await (await api('GET', '/v1/subscribers/fay/preferences/history')).json()) as { data: { origin: string; patches: unknown[]; scope?: { category?: string } }[] }).data;
    expect(history.map((h) => h.origin)).toEqual(['page', 'one-click']);
    expect(history[0]!.patches).toEqual([{ categories: { marketing: { email: true } } }]);
    expect(history[1]!.scope).toMatchObject({ purpose: 'unsubscribe', category: 'marketing' });
    expect((await api('GET', '/v1/subscribers/fay/preferences/history?limit=abc')).status).toBe(422);
  });
});
