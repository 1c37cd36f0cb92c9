import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { smtpProvider } from '../src/index.js';
import { smtpServer } from './servers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An HTML layout whose CSS is in a <style> element: it reaches the recipient inlined. */
const LAYOUT = `<!doctype html>
<html><head><style>.card { padding: 24px; border: 1px solid #dddddd; } .footer { color: #777777; font-size: 12px; }</style></head>
<body><div class="card"><img src="{{ brand.logoUrl }}" alt="{{ brand.name }}">{{ content }}</div><p class="footer">{{ brand.footer }}</p></body></html>`;

describe('an email as it reaches an SMTP server: layout, brand, locale', () => {
  it("is multipart/alternative with the layout around the body, styles inlined, the preheader hidden, lang from the locale, the tenant's sender name and one-click unsubscribe headers", async () => {
    const smtp = await smtpServer();
    closers.push(smtp.close);
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [smtpProvider()], links: { baseUrl: 'https://notify.tidings.test' } });
    await tidings.integrations.upsert({ name: 'smtp', providerId: 'nodemailer', channel: 'email', credentials: { host: '127.0.0.1', port: String(smtp.port), from: 'noreply@tidings.test', senderName: 'Tidings', ignoreTls: true } });
    await tidings.layouts.upsert({ identifier: 'card', content: LAYOUT, isDefault: true });
    await tidings.brands.upsert({ name: 'Tidings', logoUrl: 'https://tidings.test/logo.png', footer: 'Tidings, 1 Main St.' });
    await tidings.tenants.upsert({ identifier: 'globex' });
    await tidings.brands.upsert({ tenant: 'globex', name: 'Globex', fromName: 'Globex Billing', footer: 'Globex Corp.' });
    await tidings.workflows.upsert({
      name: 'invoice',
      triggers: [{ identifier: 'invoice' }],
      steps: [{ template: { type: 'email', subject: 'Invoice {{ payload.number }}', preheader: 'Due on {{ payload.due }}', content: '<p>Invoice {{ payload.number }} is ready. <a href="https://tidings.test/i/{{ payload.number }}">View it</a></p>' } }],
    });
    await tidings.trigger({ name: 'invoice', to: { subscriberId: 'ana', firstName: 'Ana', lastName: 'Lima', email: 'ana@example.test', locale: 'pt-BR' }, payload: { number: 42, due: '1 July' }, tenant: 'globex' });
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(1);
    const raw = smtp.mails[0]!.raw;
    expect(raw).toMatch(/Content-Type: multipart\/alternative/i);
    const mail = await simpleParser(raw);
    expect(mail.subject).toBe('Invoice 42');
    expect(mail.from?.value[0]).toMatchObject({ name: 'Globex Billing', address: 'noreply@tidings.test' });
    const html = String(mail.html);
    expect(html).toMatch(/<html[^>]* lang="pt-BR"[^>]* dir="ltr"/);
    expect(html).toMatch(/<div class="card" style="padding: 24px; border: 1px solid #dddddd;">/);
    expect(html).toMatch(/<p class="footer" style="color: #777777; font-size: 12px;">Globex Corp.<\/p>/);
    expect(html).toContain('src="https://tidings.test/logo.png"');
    expect(html).toMatch(/<div data-tidings-preheader[^>]*>Due on 1 July/);
    expect(html).toContain('Invoice 42 is ready.');
    expect(mail.text).toContain('Invoice 42 is ready. View it (https://tidings.test/i/42)');
    expect(mail.text).toContain('Globex Corp.');
    expect(mail.text).not.toContain('Due on 1 July');
    // RFC 8058: both headers, the signed one-click URL of this subscriber and workflow.
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    expect(raw).toMatch(/^List-Unsubscribe:\s+<https:\/\/notify\.tidings\.test\/unsubscribe\/[\w-]+\.[\w-]+>/m);
  });
});
