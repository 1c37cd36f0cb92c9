import { isTidingsError, type Tidings } from '@tidings/core';
import { categoryName, linkEnvironment } from '@tidings/core/internal';
import type { Context, Hono } from 'hono';
import { readBody } from '../body.js';
import type { AppEnv } from '../context.js';
import { esc, page } from './page-html.js';
import { PAGE_TEXTS } from './page-texts.js';

const SECURITY = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};
const FORM_LIMIT = 64 * 1024;

type Claims = Awaited<ReturnType<Tidings['preferences']['openLink']>>;

/**
 * The pages a subscriber reaches from an email, with no login and no API key: the signed link is the
 * only credential, and it opens that one subscriber's preferences of that one environment.
 * `GET /unsubscribe/:token` asks, `POST` unsubscribes (RFC 8058's one-click `POST` with the form body
 * `List-Unsubscribe=One-Click`, or the page's button), with a way back in; `GET /preferences/:token`
 * lists what the subscriber can change, `POST` saves it.
 */
export function preferencePageRoutes(app: Hono<AppEnv>, environments: readonly Tidings[]): void {
  const byEnvironment = new Map(environments.map((t) => [t.environmentId, t]));

  const html = (c: Context<AppEnv>, body: string, status = 200) => c.html(body, status as 200, SECURITY);
  const refused = (c: Context<AppEnv>, message: string, status: number) =>
    html(c, page({ title: 'This link does not work', brand: null, lang: 'en', body: `<h1>This link does not work</h1><p>${esc(message)}.</p><p class="muted">Use the link of a more recent email, or ask for a new one.</p>` }), status);

  /** The engine and checked claims of a token, or the page saying why it is refused. */
  async function opened(c: Context<AppEnv>, purpose: 'preferences' | 'unsubscribe'): Promise<{ tidings: Tidings; claims: Claims } | Response> {
    const token = c.req.param('token') ?? '';
    const tidings = byEnvironment.get(linkEnvironment(token) ?? '');
    if (!tidings) return refused(c, 'the link is not a valid link', 404);
    try {
      return { tidings, claims: await tidings.preferences.openLink(token, purpose) };
    } catch (error) {
      if (isTidingsError(error, 'unauthorized')) return refused(c, error.message, 403);
      throw error;
    }
  }

  /** The pages' texts in the subscriber's language (the link's tenant's catalogs first), escaped. */
  async function textsOf(tidings: Tidings, claims: Claims) {
    const locale = (await tidings.subscribers.get(claims.subscriberId))?.locale ?? null;
    const translate = await tidings.translations.forLocale(locale, { tenant: claims.tenant ?? null, defaults: PAGE_TEXTS });
    return { lang: translate.locale, say: (key: string, values: Record<string, unknown> = {}) => esc(translate.t(`tidings.pages.${key}`, values)) };
  }
  const brandOf = async (tidings: Tidings, claims: Claims) => (claims.tenant ? ((await tidings.brands.get(claims.tenant)) ?? (await tidings.brands.get())) : await tidings.brands.get());
  /** What an unsubscribe link opts out of, by name: its category, else its workflow. */
  async function scopeName(tidings: Tidings, claims: Claims): Promise<string> {
    if (claims.category) return (await tidings.categories.get(claims.category))?.name ?? categoryName(claims.category);
    return claims.workflowId ? ((await tidings.workflows.get(claims.workflowId))?.name ?? claims.workflowId) : '';
  }
  const preferencesLink = async (tidings: Tidings, claims: Claims) =>
    (await tidings.preferences.link(claims.subscriberId, { ...(claims.tenant && { tenant: claims.tenant }), expiresIn: 7 * 86_400 })).url;

  async function unsubscribePage(c: Context<AppEnv>, tidings: Tidings, claims: Claims, state: 'ask' | 'unsubscribed' | 'resubscribed') {
    const { lang, say } = await textsOf(tidings, claims);
    const workflow = await scopeName(tidings, claims);
    const token = esc(c.req.param('token') ?? '');
    const manage = `<p><a href="${esc(await preferencesLink(tidings, claims))}">${say('manageLink')}</a></p>`;
    const body =
      state === 'ask'
        ? `<h1>${say('unsubscribeTitle')}</h1><p>${say('unsubscribeAsk', { workflow })}</p><form method="post" action="${token}"><input type="hidden" name="action" value="unsubscribe"><button type="submit">${say('unsubscribeButton')}</button></form>${manage}`
        : state === 'unsubscribed'
          ? `<h1>${say('unsubscribedTitle')}</h1><p>${say('unsubscribedText', { workflow })}</p><form method="post" action="${token}"><input type="hidden" name="action" value="resubscribe"><button type="submit" class="secondary">${say('resubscribeButton')}</button></form>${manage}`
          : `<h1>${say('resubscribedTitle')}</h1><p>${say('resubscribedText', { workflow })}</p>${manage}`;
    return html(c, page({ title: say('unsubscribeTitle'), brand: await brandOf(tidings, claims), lang, body }));
  }

  app.get('/unsubscribe/:token', async (c) => {
    const open = await opened(c, 'unsubscribe');
    if (open instanceof Response) return open;
    return unsubscribePage(c, open.tidings, open.claims, 'ask');
  });

  app.post('/unsubscribe/:token', async (c) => {
    const open = await opened(c, 'unsubscribe');
    if (open instanceof Response) return open;
    const form = new URLSearchParams(await readBody(c.req.raw, FORM_LIMIT));
    const token = c.req.param('token');
    // RFC 8058: a mail client's one-click POST carries exactly this field, no cookie, no login.
    if (form.get('List-Unsubscribe') === 'One-Click') {
      await open.tidings.preferences.unsubscribe(token);
      return c.text('Unsubscribed.', 200, SECURITY);
    }
    if (form.get('action') === 'resubscribe') {
      await open.tidings.preferences.resubscribe(token, { origin: 'page' });
      return unsubscribePage(c, open.tidings, open.claims, 'resubscribed');
    }
    await open.tidings.preferences.unsubscribe(token, { origin: 'page' });
    return unsubscribePage(c, open.tidings, open.claims, 'unsubscribed');
  });

  async function preferencesPage(c: Context<AppEnv>, tidings: Tidings, claims: Claims, saved: boolean) {
    const { lang, say } = await textsOf(tidings, claims);
    const prefs = await tidings.preferences.get(claims.subscriberId);
    const critical = (await tidings.workflows.list()).filter((w) => w.critical && w.active);
    const box = (name: string, channel: string, on: boolean, id: string) =>
      `<label for="${esc(id)}"><input type="checkbox" id="${esc(id)}" name="${esc(name)}" value="on"${on ? ' checked' : ''}> ${say(`channel.${channel}`)}</label><input type="hidden" name="shown" value="${esc(name)}">`;
    const channelsOf = (channels: Record<string, boolean | undefined>) => Object.entries(channels).filter((e): e is [string, boolean] => typeof e[1] === 'boolean');
    const global = `<fieldset><legend>${say('allNotifications')}</legend>${channelsOf(prefs.global.channels).map(([ch, on]) => box(`global:${ch}`, ch, on, `g-${ch}`)).join('')}</fieldset>`;
    const categories = prefs.categories
      .map((k, i) => `<fieldset><legend>${esc(k.name)}</legend>${k.description ? `<p class="muted">${esc(k.description)}</p>` : ''}${channelsOf(k.channels).map(([ch, on]) => box(`cat:${k.key}:${ch}`, ch, on, `c${i}-${ch}`)).join('')}</fieldset>`)
      .join('');
    const workflows = prefs.workflows
      .map((w, i) => `<fieldset><legend>${esc(w.workflow.name)}</legend>${channelsOf(w.channels).map(([ch, on]) => box(`wf:${w.workflow.identifier}:${ch}`, ch, on, `w${i}-${ch}`)).join('')}</fieldset>`)
      .join('');
    const fixed = critical.length > 0 ? `<p class="fixed">${say('alwaysSent', { workflows: critical.map((w) => w.name).join(', ') })}</p>` : '';
    const body = `<h1>${say('preferencesTitle')}</h1>${saved ? `<p role="status"><strong>${say('saved')}</strong></p>` : ''}<form method="post" action="${esc(c.req.param('token') ?? '')}">${global}${categories}${workflows}${fixed}<button type="submit">${say('save')}</button></form>`;
    return html(c, page({ title: say('preferencesTitle'), brand: await brandOf(tidings, claims), lang, body }));
  }

  app.get('/preferences/:token', async (c) => {
    const open = await opened(c, 'preferences');
    if (open instanceof Response) return open;
    return preferencesPage(c, open.tidings, open.claims, false);
  });

  app.post('/preferences/:token', async (c) => {
    const open = await opened(c, 'preferences');
    if (open instanceof Response) return open;
    const form = new URLSearchParams(await readBody(c.req.raw, FORM_LIMIT));
    const on = new Set(form.getAll('shown').filter((name) => form.get(name) === 'on'));
    // Only the boxes the subscriber changed: a box left as shown keeps inheriting from the level above.
    const shown = boxStates(await open.tidings.preferences.get(open.claims.subscriberId));
    const changed = form.getAll('shown').filter((name) => shown.get(name) !== on.has(name));
    const global: Record<string, boolean> = {};
    const categories: Record<string, Record<string, boolean>> = {};
    const workflows = new Map<string, Record<string, boolean>>();
    for (const name of changed) {
      const parts = name.split(':');
      if (parts[0] === 'global' && parts.length === 2) global[parts[1]!] = on.has(name);
      else if (parts[0] === 'cat' && parts.length === 3) categories[parts[1]!] = { ...categories[parts[1]!], [parts[2]!]: on.has(name) };
      else if (parts[0] === 'wf' && parts.length === 3) workflows.set(parts[1]!, { ...workflows.get(parts[1]!), [parts[2]!]: on.has(name) });
    }
    const broad = { ...(Object.keys(global).length > 0 && { channels: global }), ...(Object.keys(categories).length > 0 && { categories }) };
    const patches = [...(Object.keys(broad).length > 0 ? [broad] : []), ...[...workflows].map(([workflowId, channels]) => ({ workflowId, channels }))];
    if (patches.length > 0) await open.tidings.preferences.updateByLink(c.req.param('token'), patches as never);
    return preferencesPage(c, open.tidings, open.claims, true);
  });
}

/** Each box of the preference page by its form name, as the page shows it for these preferences. */
function boxStates(prefs: Awaited<ReturnType<Tidings['preferences']['get']>>): Map<string, boolean> {
  const states = new Map<string, boolean>();
  const add = (prefix: string, channels: Record<string, boolean | undefined>) => {
    for (const [channel, on] of Object.entries(channels)) if (typeof on === 'boolean') states.set(`${prefix}${channel}`, on);
  };
  add('global:', prefs.global.channels);
  for (const category of prefs.categories) add(`cat:${category.key}:`, category.channels);
  for (const workflow of prefs.workflows) add(`wf:${workflow.workflow.identifier}:`, workflow.channels);
  return states;
}
