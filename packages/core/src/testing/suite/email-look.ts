import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { Provider, ProviderMessage } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { SuiteContext } from '../storage-under-test.js';

const MJML_LAYOUT = `<mjml>
  <mj-body background-color="{{ brand.colors.background }}">
    <mj-section><mj-column>
      <mj-image src="{{ brand.logoUrl }}" width="120px" alt="{{ brand.name }}" />
      <mj-text font-size="16px">{{ content }}</mj-text>
      <mj-text font-size="12px" color="#888888">{{ brand.footer }} · {{ subscriber.firstName }}</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;

/** React and its renderer, when installed (optional peers of @tidings/core): the component tests need them. */
const reactOrNull = () => Promise.all([import('react'), import('@react-email/render')]).then(([react]) => react, () => null);

const PO_PT = `msgid ""
msgstr ""
"Language: pt_BR\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

msgctxt "invoice"
msgid "due"
msgid_plural "due"
msgstr[0] "# fatura vence"
msgstr[1] "# faturas vencem"

#, fuzzy
msgctxt "invoice"
msgid "subject"
msgstr "Fatura?"
`;

/** Layouts, brands and the email as sent, on every backend: records only, no adapter code. */
export function emailLookSuite({ get }: SuiteContext): void {
  describe('email layouts and brands over this storage', () => {
    function engine() {
      const sent: ProviderMessage[] = [];
      const mail: Provider = { id: 'mailer', channel: 'email', send: async (message) => (sent.push(message), { id: `pm-${sent.length}` }) };
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'looks', providers: [mail] });
      return { tidings, sent };
    }

    it('layouts — MJML is compiled once when saved; one default per environment; a revision per save', async () => {
      const { tidings } = engine();
      const first = await tidings.layouts.upsert({ identifier: 'brand-mjml', content: MJML_LAYOUT, isDefault: true });
      expect(first).toMatchObject({ type: 'mjml', isDefault: true, revision: 1, name: 'brand-mjml' });
      expect(first.html).not.toContain('<mj-');
      expect(first.html).toContain('{{ content }}');
      const second = await tidings.layouts.upsert({ identifier: 'plain', name: 'Plain', content: '<html><body><main>{{ content }}</main></body></html>', isDefault: true });
      expect(second).toMatchObject({ type: 'html', isDefault: true, revision: 1 });
      expect((await tidings.layouts.get('brand-mjml'))?.isDefault).toBe(false);
      expect((await tidings.layouts.upsert({ identifier: 'plain', content: '<p>{{ content }}</p>' })).revision).toBe(2);
      expect((await tidings.layouts.get('plain'))?.isDefault).toBe(true);
      expect((await tidings.layouts.list()).map((l) => l.identifier)).toEqual(['brand-mjml', 'plain']);
      await tidings.layouts.delete('plain');
      expect(await tidings.layouts.get('plain')).toBeNull();
      await expect(tidings.layouts.delete('plain')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    });

    it('layouts — one without the {{ content }} slot, or with MJML or liquid that does not compile, is refused naming the field, and nothing is stored', async () => {
      const { tidings } = engine();
      for (const content of ['<html><body>no slot</body></html>', '<mjml><mj-body><mj-section><mj-text>{{ content }}</mj-text></mj-section></mj-body></mjml>', '<p>{{ content }}{% if %}</p>']) {
        const refused = await tidings.layouts.upsert({ identifier: 'bad', content }).catch((e: unknown) => e);
        expect(isTidingsError(refused, 'validation_failed'), String(refused)).toBe(true);
        expect((refused as { issues: { path: string }[] }).issues[0]!.path).toBe('content');
      }
      await expect(tidings.layouts.upsert({ identifier: 'bad id!', content: '{{ content }}' })).rejects.toThrow(/identifier/);
      expect(await tidings.layouts.list()).toEqual([]);
    });

    it("brands — a tenant's brand lies over the environment's: its layout, colours, footer, sender name and Reply-To reach the email; the sent HTML is stored and equals the preview", async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.layouts.upsert({ identifier: 'brand-mjml', content: MJML_LAYOUT });
      await tidings.brands.upsert({ name: 'Acme', logoUrl: 'https://acme.test/logo.png', colors: { background: '#eeeeee', primary: '#ff0000' }, footer: 'Acme Inc.', fromName: 'Acme', replyTo: 'help@acme.test' });
      await tidings.tenants.upsert({ identifier: 'globex', name: 'Globex' });
      await tidings.brands.upsert({ tenant: 'globex', name: 'Globex', footer: 'Globex Corp.', fromName: 'Globex Team', layoutId: 'brand-mjml' });
      await tidings.workflows.upsert({
        name: 'invite',
        triggers: [{ identifier: 'invite' }],
        steps: [{ template: { type: 'email', subject: 'Join {{ payload.team }}', preheader: 'You are invited, {{ subscriber.firstName }}', content: '<p>Hi {{ subscriber.firstName }}, <a href="https://acme.test/join">join {{ payload.team }}</a>.</p>' } }],
      });
      const subscriber = { subscriberId: 'ana', email: 'ana@x.test', firstName: 'Ana', locale: 'pt-BR' };
      await tidings.trigger({ name: 'invite', to: subscriber, payload: { team: 'Rockets' }, tenant: 'globex' });
      await tidings.trigger({ name: 'invite', to: subscriber, payload: { team: 'Rockets' } });
      await tidings.runDue();
      expect(sent).toHaveLength(2);
      const [globex, acme] = [sent.find((m) => m.html!.includes('Globex Corp.'))!, sent.find((m) => !m.html!.includes('Globex Corp.'))!];
      // The tenant's layout (MJML, compiled) with the environment's colours and logo under the tenant's footer.
      expect(globex.html).toContain('https://acme.test/logo.png');
      expect(globex.html).toMatch(/background(-color)?:#eeeeee/);
      expect(globex.html).toContain('Globex Corp. · Ana');
      expect(globex.email).toMatchObject({ senderName: 'Globex Team', replyTo: 'help@acme.test' });
      // No tenant: the environment's brand in the built-in layout.
      expect(acme.html).toContain('Acme Inc.');
      expect(acme.email).toMatchObject({ senderName: 'Acme', replyTo: 'help@acme.test' });
      for (const message of [globex, acme]) {
        expect(message.html).toMatch(/<html[^>]* lang="pt-BR"/);
        expect(message.html).toMatch(/<html[^>]* dir="ltr"/);
        expect(message.html).toMatch(/<div data-tidings-preheader[^>]*display:none[^>]*>You are invited, Ana/);
        expect(message.content).toContain('join Rockets (https://acme.test/join)');
        expect(message.content).not.toContain('You are invited');
      }
      const stored = await tidings.messages.byTransaction(globex.transactionId);
      expect(stored[0]).toMatchObject({ html: globex.html, layoutId: 'brand-mjml', preheader: 'You are invited, Ana' });
      const preview = await tidings.preview({ workflowId: 'invite', subscriberId: 'ana', payload: { team: 'Rockets' }, tenant: 'globex' });
      expect(preview.steps).toHaveLength(1);
      expect(preview.steps[0]).toMatchObject({ channel: 'email', subject: 'Join Rockets', html: globex.html, text: globex.content, layoutId: 'brand-mjml', senderName: 'Globex Team' });
    });

    it('layouts — `layoutId: null` sends the body alone; a layout that does not exist fails the step with the reason in explain; brand.* is in every template', async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.brands.upsert({ name: 'Acme' });
      await tidings.workflows.upsert({ name: 'bare', triggers: [{ identifier: 'bare' }], steps: [{ template: { type: 'email', subject: 's', content: '<p>bare body</p>', layoutId: null } }, { template: { type: 'in_app', content: 'From {{ brand.name }}' } }] });
      await tidings.workflows.upsert({ name: 'gone', triggers: [{ identifier: 'gone' }], layoutId: 'nowhere', steps: [{ template: { type: 'email', subject: 's', content: 'x' } }] });
      await tidings.trigger({ name: 'bare', to: { subscriberId: 'bo', email: 'bo@x.test' }, transactionId: 'tx-bare' });
      const gone = await tidings.trigger({ name: 'gone', to: { subscriberId: 'bo', email: 'bo@x.test' } });
      await tidings.runDue();
      expect(sent).toHaveLength(1);
      expect(sent[0]!.html).toBe('<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"></head><body><p>bare body</p></body></html>');
      expect((await tidings.messages.byTransaction('tx-bare')).find((m) => m.channel === 'in_app')?.content).toBe('From Acme');
      const entries = (await tidings.explain(gone.transactionId!)).flatMap((r) => r.entries);
      expect(entries[0]).toMatchObject({ type: 'email', decision: 'failed', reason: expect.stringContaining('the layout "nowhere" does not exist') });
    });

    it('preview — renders every step without storing or sending; refuses what it cannot find, naming it', async () => {
      const { tidings, sent } = engine();
      await tidings.workflows.upsert({
        name: 'digest-ish',
        triggers: [{ identifier: 'digest-ish' }],
        steps: [
          { template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}' } },
          { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'hours' } },
          { template: { type: 'email', subject: 'About {{ payload.topic }}', content: [{ type: 'text', content: 'Body' }, { type: 'button', content: 'Open', url: 'https://x.test/o' }] } },
          { template: { type: 'sms', content: 'skip me' }, filters: [{ value: 'AND', children: [{ field: 'flag', value: 'yes', operator: 'EQUAL', on: 'payload' }] }] },
        ],
      });
      const preview = await tidings.preview({ workflowId: 'digest-ish', subscriber: { subscriberId: 'sample', firstName: 'Sam' }, payload: { topic: 'tests' } });
      expect(preview.steps.map((s) => [s.channel, s.subject ?? s.content])).toEqual([
        ['in_app', 'Hi Sam'],
        ['email', 'About tests'],
      ]);
      expect(preview.steps[1]!.text).toContain('Open (https://x.test/o)');
      expect(preview.notSent).toEqual([expect.objectContaining({ type: 'sms', reason: 'a step filter did not pass' })]);
      expect((await tidings.preview({ workflowId: 'digest-ish', stepId: '2', subscriber: { subscriberId: 's' } })).steps.map((s) => s.channel)).toEqual(['email']);
      expect(sent).toEqual([]);
      expect(await tidings.subscribers.get('sample')).toBeNull();
      await expect(tidings.preview({ workflowId: 'nope', subscriberId: 'x' })).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
      await expect(tidings.preview({ workflowId: 'digest-ish' } as never)).rejects.toThrow(/subscriberId: give exactly one of subscriberId and subscriber/);
    });
    it("partials — layouts and email steps include them with {% render %}; a missing one fails the step by name; no template reads the process's files", async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.partials.upsert({ identifier: 'button', content: '<a class="btn" href="{{ url }}">{{ label }}</a>' });
      expect((await tidings.partials.upsert({ identifier: 'button', content: '<a class="button" href="{{ url }}">{{ label }}</a>' })).revision).toBe(2);
      await tidings.partials.upsert({ identifier: 'signature', content: '<p>— The {{ team }} team</p>' });
      await tidings.layouts.upsert({ identifier: 'signed', content: "<html><body>{{ content }}{% render 'signature', team: brand.name %}</body></html>", isDefault: true });
      await tidings.brands.upsert({ name: 'Acme' });
      await tidings.workflows.upsert({ name: 'cta', triggers: [{ identifier: 'cta' }], steps: [{ template: { type: 'email', subject: 's', content: "<p>Hi</p>{% render 'button', label: 'Open', url: payload.url %}" } }] });
      await tidings.workflows.upsert({ name: 'broken', triggers: [{ identifier: 'broken' }], steps: [{ template: { type: 'email', subject: 's', content: "{% render 'nowhere' %}" } }] });
      await tidings.workflows.upsert({ name: 'snoop', triggers: [{ identifier: 'snoop' }], steps: [{ template: { type: 'email', subject: 's', content: "{% include 'package.json' %}{% render '/etc/hostname' %}" } }] });
      await tidings.trigger({ name: 'cta', to: { subscriberId: 'al', email: 'al@x.test' }, payload: { url: 'https://x.test/?a=1&b=2' } });
      const broken = await tidings.trigger({ name: 'broken', to: { subscriberId: 'al', email: 'al@x.test' } });
      const snoop = await tidings.trigger({ name: 'snoop', to: { subscriberId: 'al', email: 'al@x.test' } });
      await tidings.runDue();
      expect(sent).toHaveLength(1);
      expect(sent[0]!.html).toContain('<a class="button" href="https://x.test/?a=1&amp;b=2">Open</a>');
      expect(sent[0]!.html).toContain('<p>— The Acme team</p>');
      for (const [transactionId, name] of [[broken.transactionId!, 'nowhere'], [snoop.transactionId!, 'package.json']] as const) {
        const entry = (await tidings.explain(transactionId)).flatMap((r) => r.entries)[0];
        expect(entry).toMatchObject({ decision: 'failed', reason: expect.stringContaining(`the partial "${name}" does not exist`) });
      }
      expect((await tidings.partials.list()).map((p) => p.identifier)).toEqual(['button', 'signature']);
      await expect(tidings.partials.upsert({ identifier: 'bad', content: '{% if %}' })).rejects.toThrow(/content: is not a valid template/);
      await tidings.partials.delete('signature');
      expect(await tidings.partials.get('signature')).toBeNull();
    });
    it("translations — the trigger's, else the subscriber's locale; tenant+region → tenant+language → region → language → default; ICU plurals; explain notes the locale and each key that fell back; a key missing everywhere fails the step by name", async () => {
      const sent: ProviderMessage[] = [];
      const mail: Provider = { id: 'mailer', channel: 'email', send: async (message) => (sent.push(message), { id: `pm-${sent.length}` }) };
      const tidings = createTidings({
        storage: get(),
        clock: manualClock('2026-05-04T08:00:00.000Z'),
        environmentId: 'i18n',
        providers: [mail],
        translations: { en: { invoice: { subject: 'Your invoice', due: '{count, plural, one {# invoice is} other {# invoices are}} due', footer: 'Thanks' } }, pt: { invoice: { subject: 'Sua fatura' } } },
      });
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.tenants.upsert({ identifier: 'acme' });
      await tidings.translations.upsert({ locale: 'pt-BR', entries: { invoice: { due: '{count, plural, one {# fatura vence} other {# faturas vencem}}' } } });
      await tidings.translations.upsert({ locale: 'pt_BR', tenant: 'acme', entries: { invoice: { subject: 'Fatura da Acme' } } });
      expect((await tidings.translations.list()).map((c) => [c.tenant, c.locale])).toEqual(expect.arrayContaining([[null, 'pt-BR'], ['acme', 'pt-BR']]));
      await tidings.workflows.upsert({
        name: 'invoice',
        triggers: [{ identifier: 'invoice' }],
        steps: [
          { template: { type: 'in_app', content: "{{ 'invoice.due' | t: count: payload.n }} · {{ t.invoice.footer }}" } },
          { template: { type: 'email', subject: "{{ 'invoice.subject' | t }}", content: "<p>{{ 'invoice.due' | t: count: payload.n }}</p>" } },
        ],
      });
      await tidings.workflows.upsert({ name: 'broken', triggers: [{ identifier: 'broken' }], steps: [{ template: { type: 'in_app', content: "{{ 'nowhere.key' | t }}" } }] });
      const ana = { subscriberId: 'ana', email: 'ana@x.test', locale: 'pt-BR' };
      const acme = await tidings.trigger({ name: 'invoice', to: ana, payload: { n: 2 }, tenant: 'acme' });
      const plain = await tidings.trigger({ name: 'invoice', to: ana, payload: { n: 1 } });
      const english = await tidings.trigger({ name: 'invoice', to: ana, payload: { n: 1 }, locale: 'en-GB' });
      const broken = await tidings.trigger({ name: 'broken', to: ana });
      await tidings.runDue();
      const inApp = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId)).find((m) => m.channel === 'in_app')?.content;
      expect(await inApp(acme.transactionId!)).toBe('2 faturas vencem · Thanks');
      expect(await inApp(plain.transactionId!)).toBe('1 fatura vence · Thanks');
      expect(await inApp(english.transactionId!)).toBe('1 invoice is due · Thanks');
      const subjects = Object.fromEntries(sent.map((m) => [m.transactionId, m.subject]));
      expect(subjects).toEqual({ [acme.transactionId!]: 'Fatura da Acme', [plain.transactionId!]: 'Sua fatura', [english.transactionId!]: 'Your invoice' });
      expect(sent.find((m) => m.transactionId === acme.transactionId)!.html).toMatch(/<html[^>]* lang="pt-BR"/);
      const entries = (await tidings.explain(acme.transactionId!)).flatMap((r) => r.entries);
      expect(entries.find((e) => e.type === 'email')).toMatchObject({ decision: 'delivered', locale: 'pt-BR' });
      expect(entries.find((e) => e.type === 'email')?.translationFallbacks).toBeUndefined();
      const plainEmail = (await tidings.explain(plain.transactionId!)).flatMap((r) => r.entries).find((e) => e.type === 'email');
      expect(plainEmail).toMatchObject({ locale: 'pt-BR', translationFallbacks: ['invoice.subject'] });
      expect((await tidings.explain(broken.transactionId!)).flatMap((r) => r.entries)[0]).toMatchObject({ decision: 'failed', reason: expect.stringContaining('the translation "nowhere.key" is missing') });
      expect(await tidings.translations.translate('invoice.due', { locale: 'pt-BR', values: { count: 1 } })).toBe('1 fatura vence');
      await expect(tidings.translations.upsert({ locale: 'xx-!!', entries: {} })).rejects.toThrow(/locale: must be a language tag/);
      await expect(tidings.translations.upsert({ locale: 'en', entries: { a: { 'b.c': 'x' } } })).rejects.toThrow(/entries\.a\.b\.c: a key must be non-empty and hold no "\."/);
      await tidings.translations.delete('pt-BR', { tenant: 'acme' });
      expect(await tidings.translations.get('pt-BR', { tenant: 'acme' })).toBeNull();
    });

    it("email components — with components registered, a workflow naming another is refused when saved, by field; the sent email is the component's document with the preheader and a text part, stored, and byte-identical to the preview", async (context) => {
      const react = await reactOrNull();
      if (!react) return context.skip('react and @react-email/render are not installed');
      const Welcome = ({ name, plan, features }: { name: string; plan: string; features: string[] }) =>
        react.createElement('html', { lang: 'en' }, react.createElement('body', null, react.createElement('h1', null, `Welcome, ${name}`), react.createElement('p', null, `Your plan: ${plan}`), react.createElement('ul', null, features.map((f) => react.createElement('li', { key: f }, f)))));
      const sent: ProviderMessage[] = [];
      const mail: Provider = { id: 'mailer', channel: 'email', send: async (message) => (sent.push(message), { id: `pm-${sent.length}` }) };
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'components', providers: [mail], emailComponents: { Welcome } });
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.layouts.upsert({ identifier: 'never', content: '<html><body>LAYOUT {{ content }}</body></html>', isDefault: true });
      const refused = await tidings.workflows
        .upsert({ name: 'typo', triggers: [{ identifier: 'typo' }], steps: [{ template: { type: 'email', subject: 's', content: '<p>x</p>' }, variants: [{ template: { type: 'email', subject: 's', component: 'Welcom' } }] }] })
        .catch((e: unknown) => e);
      expect(isTidingsError(refused, 'validation_failed')).toBe(true);
      expect((refused as { issues: unknown[] }).issues).toEqual([{ path: 'steps[0].variants[0].template.component', message: 'the email component "Welcom" is not registered (registered: Welcome)' }]);
      expect(await tidings.workflows.get('typo')).toBeNull();
      await tidings.workflows.upsert({
        name: 'welcome',
        triggers: [{ identifier: 'welcome' }],
        steps: [{ template: { type: 'email', subject: 'Welcome, {{ subscriber.firstName }}', preheader: 'Your {{ payload.plan }} plan is ready', component: 'Welcome', props: { name: '{{ subscriber.firstName }} & co', plan: '{{ payload.plan | upcase }}', features: '{{ payload.features }}' } } }],
      });
      const ana = { subscriberId: 'ana', email: 'ana@x.test', firstName: 'Ana', locale: 'pt-BR' };
      const payload = { plan: 'pro', features: ['Digests', 'Layouts'] };
      const { transactionId } = await tidings.trigger({ name: 'welcome', to: ana, payload });
      await tidings.runDue();
      expect(sent).toHaveLength(1);
      const html = sent[0]!.html!;
      // The component's own document, not put in the default layout; lang kept, dir and the preheader added.
      expect(html).toMatch(/^<!DOCTYPE html/);
      expect(html).not.toContain('LAYOUT');
      expect(html).toMatch(/<html lang="en" dir="ltr">/);
      expect(html).toMatch(/<div data-tidings-preheader[^>]*>Your pro plan is ready/);
      expect(html).toContain('<h1>Welcome, Ana &amp; co</h1><p>Your plan: PRO</p><ul><li>Digests</li><li>Layouts</li></ul>');
      expect(sent[0]!.content).toBe('Welcome, Ana & co\n\nYour plan: PRO\n\n * Digests\n * Layouts');
      const stored = (await tidings.messages.byTransaction(transactionId!))[0];
      expect(stored).toMatchObject({ html, layoutId: null, preheader: 'Your pro plan is ready' });
      const preview = await tidings.preview({ workflowId: 'welcome', subscriberId: 'ana', payload });
      expect(preview.steps[0]).toMatchObject({ channel: 'email', subject: 'Welcome, Ana', html, text: sent[0]!.content, layoutId: null });
    });

    it('email components — without them registered, a step naming one is saved and fails with the reason in explain; the preview says why it is not sent', async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'welcome', triggers: [{ identifier: 'welcome' }], steps: [{ template: { type: 'email', subject: 's', component: 'Welcome' } }, { template: { type: 'in_app', content: 'after' } }] });
      const { transactionId } = await tidings.trigger({ name: 'welcome', to: { subscriberId: 'bo', email: 'bo@x.test' } });
      await tidings.runDue();
      expect(sent).toEqual([]);
      const entries = (await tidings.explain(transactionId!)).flatMap((r) => r.entries);
      expect(entries[0]).toMatchObject({ type: 'email', decision: 'failed', reason: expect.stringContaining('the email component "Welcome" is not registered: no components are') });
      expect(entries[1]).toMatchObject({ type: 'in_app', decision: 'delivered' });
      const preview = await tidings.preview({ workflowId: 'welcome', subscriberId: 'bo' });
      expect(preview.notSent).toEqual([expect.objectContaining({ type: 'email', reason: expect.stringContaining('is not registered') })]);
      await expect(tidings.workflows.upsert({ name: 'mixed', triggers: [{ identifier: 'mixed' }], steps: [{ template: { type: 'email', subject: 's', content: '<p>x</p>', component: 'Welcome' } }] })).rejects.toThrow(
        'steps[0].template.content: give content or component, not both',
      );
    });

    it("layouts — named slots: a step fills them (liquid with the step's variables, escaped as the body is); an unfilled one is empty or the layout's {% if %} fallback; a bad slot name is refused by field", async () => {
      const { tidings, sent } = engine();
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.layouts.upsert({
        identifier: 'slotted',
        isDefault: true,
        content: '<html><body><main>{{ content }}</main><aside>{{ aside }}</aside><footer>{% if footer %}{{ footer }}{% else %}<p>Default footer</p>{% endif %}</footer></body></html>',
      });
      await tidings.workflows.upsert({
        name: 'filled',
        triggers: [{ identifier: 'filled' }],
        steps: [{ template: { type: 'email', subject: 's', content: '<p>Body</p>', slots: { footer: '<p>For {{ subscriber.firstName }} of {{ payload.team }}</p>' } } }],
      });
      await tidings.workflows.upsert({ name: 'plain', triggers: [{ identifier: 'plain' }], steps: [{ template: { type: 'email', subject: 's', content: '<p>Body</p>' } }] });
      const to = { subscriberId: 'cy', email: 'cy@x.test', firstName: 'Cy' };
      const filled = await tidings.trigger({ name: 'filled', to, payload: { team: '<Rockets>' } });
      await tidings.trigger({ name: 'plain', to });
      await tidings.runDue();
      const html = (transactionId: string | undefined) => sent.find((m) => (transactionId ? m.transactionId === transactionId : m.transactionId !== filled.transactionId))!.html!;
      expect(html(filled.transactionId)).toContain('<main><p>Body</p></main><aside></aside><footer><p>For Cy of &lt;Rockets&gt;</p></footer>');
      expect(html(undefined)).toContain('<main><p>Body</p></main><aside></aside><footer><p>Default footer</p></footer>');
      const preview = await tidings.preview({ workflowId: 'filled', subscriber: to, payload: { team: '<Rockets>' } });
      expect(preview.steps[0]!.html).toBe(html(filled.transactionId));
      await expect(tidings.workflows.upsert({ name: 'bad', triggers: [{ identifier: 'bad' }], steps: [{ template: { type: 'email', subject: 's', content: 'x', slots: { content: 'y' } } }] })).rejects.toThrow(
        /steps\[0\]\.template\.slots\.content: a slot name must not be one of the layout's own variables/,
      );
      await expect(tidings.workflows.upsert({ name: 'bad', triggers: [{ identifier: 'bad' }], steps: [{ template: { type: 'email', subject: 's', content: 'x', slots: { footer: '{% if %}' } } }] })).rejects.toThrow(
        /steps\[0\]\.template\.slots\.footer: template does not parse/,
      );
    });

    it('translations — a PO file is stored as a catalog (plural forms as ICU plurals, fuzzy entries left out and listed), per tenant too; a file refused stores nothing', async () => {
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'po', translations: { en: { invoice: { subject: 'Your invoice', due: '{count, plural, one {# invoice is} other {# invoices are}} due' } } } });
      await tidings.tenants.upsert({ identifier: 'acme' });
      const imported = await tidings.translations.importPo('pt_BR', PO_PT);
      expect(imported).toMatchObject({ imported: 1, skipped: [{ key: 'invoice.subject', reason: 'fuzzy' }], catalog: { locale: 'pt-BR', tenant: null } });
      expect((await tidings.translations.get('pt-BR'))?.entries).toEqual({ invoice: { due: '{count, plural, one {# fatura vence} many {# faturas vencem} other {# faturas vencem}}' } });
      await tidings.translations.importPo('pt-BR', PO_PT.replace('# faturas vencem', '# faturas da Acme vencem'), { tenant: 'acme' });
      await tidings.workflows.upsert({ name: 'invoice', triggers: [{ identifier: 'invoice' }], steps: [{ template: { type: 'in_app', content: "{{ 'invoice.subject' | t }}: {{ 'invoice.due' | t: count: payload.n }}" } }] });
      const ana = { subscriberId: 'ana', locale: 'pt-BR' };
      const plain = await tidings.trigger({ name: 'invoice', to: ana, payload: { n: 3 } });
      const acme = await tidings.trigger({ name: 'invoice', to: ana, payload: { n: 3 }, tenant: 'acme' });
      await tidings.runDue();
      const content = async (transactionId: string) => (await tidings.messages.byTransaction(transactionId))[0]?.content;
      expect(await content(plain.transactionId!)).toBe('Your invoice: 3 faturas vencem');
      expect(await content(acme.transactionId!)).toBe('Your invoice: 3 faturas da Acme vencem');
      const refused = await tidings.translations.importPo('pt-BR', PO_PT.replace('msgstr[1] "# faturas vencem"', 'msgstr[1] "{count faturas"')).catch((e: unknown) => e);
      expect(isTidingsError(refused, 'validation_failed')).toBe(true);
      expect((refused as { issues: { path: string; message: string }[] }).issues).toEqual([{ path: 'entries.invoice.due', message: expect.stringContaining('msgctxt "invoice" msgid "due": is not an ICU MessageFormat text') }]);
      expect((await tidings.translations.get('pt-BR'))?.entries).toEqual({ invoice: { due: '{count, plural, one {# fatura vence} many {# faturas vencem} other {# faturas vencem}}' } });
      await expect(tidings.translations.importPo('pt-BR', '')).rejects.toThrow('po: must not be empty');
    });
  });
}
