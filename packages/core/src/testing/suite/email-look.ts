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
  });
}
