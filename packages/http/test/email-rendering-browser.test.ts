/**
 * One email, rendered from an MJML layout for two brands (the environment's and a tenant's) and two
 * locales (Portuguese and Arabic, right to left), as Chromium shows it at 600 px and at 375 px. The
 * email sent is byte for byte the email previewed. `UPDATE_SCREENSHOTS=1` writes the screenshots
 * the docs show (docs/email-previews/).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings, type Provider, type ProviderMessage } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, noteMissingChromium } from '../../../test-support/chromium.js';

const LAYOUT = `<mjml>
  <mj-head><mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /></mj-attributes></mj-head>
  <mj-body background-color="{{ brand.colors.background }}">
    <mj-section><mj-column>
      <mj-text font-size="22px" font-weight="700" color="{{ brand.colors.primary }}">{{ brand.name }}</mj-text>
    </mj-column></mj-section>
    <mj-section background-color="#ffffff" border-radius="8px" padding="24px">
      <mj-column>
        <mj-text font-size="16px" line-height="24px" color="{{ brand.colors.text }}">{{ content }}</mj-text>
        <mj-button background-color="{{ brand.colors.primary }}" href="https://app.test/invoices/{{ payload.number }}">{{ 'invoice.view' | t }}</mj-button>
      </mj-column>
    </mj-section>
    <mj-section><mj-column><mj-text font-size="12px" color="#6b7280" align="center">{{ brand.footer }}</mj-text></mj-column></mj-section>
  </mj-body>
</mjml>`;

const TRANSLATIONS = {
  en: { invoice: { subject: 'Invoice {number}', body: 'Hello {name}, your invoice {number} of {amount, number, ::currency/EUR} is ready.', view: 'View the invoice' } },
  'pt-BR': { invoice: { subject: 'Fatura {number}', body: 'Olá {name}, sua fatura {number} de {amount, number, ::currency/BRL} está pronta.', view: 'Ver a fatura' } },
  ar: { invoice: { subject: 'الفاتورة {number}', body: 'مرحبًا {name}، فاتورتك {number} بقيمة {amount, number, ::currency/EUR} جاهزة.', view: 'عرض الفاتورة' } },
};

noteMissingChromium('email rendering in a real browser (Chromium)');

describe.skipIf(!chromiumAvailable)('email rendering in a real browser (Chromium)', () => {
  it('two brands × two locales at 600 px and 375 px: no sideways scrolling, right to left in Arabic, and the email sent is the email previewed', async () => {
    const sent: ProviderMessage[] = [];
    const mail: Provider = { id: 'mailer', channel: 'email', send: async (m) => (sent.push(m), { id: `pm-${sent.length}` }) };
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [mail], translations: TRANSLATIONS });
    await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
    await tidings.layouts.upsert({ identifier: 'invoice', content: LAYOUT, isDefault: true });
    await tidings.brands.upsert({ name: 'Acme', colors: { primary: '#d92d20', background: '#fdf2f2', text: '#1f2328' }, footer: 'Acme Inc., 1 Main Street' });
    await tidings.tenants.upsert({ identifier: 'globex' });
    await tidings.brands.upsert({ tenant: 'globex', name: 'Globex', colors: { primary: '#0b6bcb', background: '#eef5fc' }, footer: 'Globex Corporation' });
    await tidings.workflows.upsert({
      name: 'invoice',
      triggers: [{ identifier: 'invoice' }],
      steps: [{ template: { type: 'email', subject: "{{ 'invoice.subject' | t: number: payload.number }}", preheader: '{{ payload.number }}', content: "<p>{{ 'invoice.body' | t: name: subscriber.firstName, number: payload.number, amount: payload.amount }}</p>" } }],
    });
    const shotsDir = process.env['UPDATE_SCREENSHOTS'] ? fileURLToPath(new URL('../../../docs/email-previews/', import.meta.url)) : mkdtempSync(join(tmpdir(), 'tidings-email-shots-'));
    mkdirSync(shotsDir, { recursive: true });
    const browser = await launchChromium();
    try {
      for (const tenant of [undefined, 'globex'] as const) {
        for (const locale of ['pt-BR', 'ar'] as const) {
          const subscriber = { subscriberId: `s-${locale}`, firstName: locale === 'ar' ? 'ليلى' : 'Ana', email: `${locale}@x.test`, locale };
          const payload = { number: 'INV-1042', amount: 1250.5 };
          const preview = await tidings.preview({ workflowId: 'invoice', subscriber, payload, ...(tenant && { tenant }) });
          const { transactionId } = await tidings.trigger({ name: 'invoice', to: subscriber, payload, ...(tenant && { tenant }) });
          // A render starved of CPU (both cores busy) is deferred to a run of its own, not failed: run until it is sent.
          const sentOf = async () => (await tidings.runDue(), sent.find((m) => m.transactionId === transactionId));
          await expect.poll(sentOf, { timeout: 60_000 }).toBeDefined();
          const email = sent.find((m) => m.transactionId === transactionId)!;
          expect(email.html).toBe(preview.steps[0]!.html);
          expect(email.content).toBe(preview.steps[0]!.text);
          for (const width of [600, 375]) {
            const page = await browser.newPage({ viewport: { width, height: 700 } });
            await page.setContent(email.html!, { waitUntil: 'load' });
            const shape = await page.evaluate(() => ({ overflow: document.documentElement.scrollWidth - window.innerWidth, dir: document.documentElement.dir, lang: document.documentElement.lang, text: document.body.innerText }));
            expect(shape.overflow, `${tenant ?? 'acme'} ${locale} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
            expect(shape).toMatchObject({ dir: locale === 'ar' ? 'rtl' : 'ltr', lang: locale });
            expect(shape.text).toContain(tenant === 'globex' ? 'Globex Corporation' : 'Acme Inc.');
            expect(shape.text).toContain(locale === 'ar' ? 'عرض الفاتورة' : 'Ver a fatura');
            await page.screenshot({ path: join(shotsDir, `${tenant ?? 'acme'}-${locale}-${width}.png`), fullPage: true });
            await page.close();
          }
        }
      }
    } finally {
      await browser.close();
    }
  });
});
