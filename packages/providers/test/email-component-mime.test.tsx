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

/** A React Email-style template: a whole document with inline styles, its props from the step. */
function InvoiceReady({ name, number, lines, url }: { name: string; number: string; lines: { label: string; amount: string }[]; url: string }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
      </head>
      <body style={{ backgroundColor: '#f4f5f7', fontFamily: 'Helvetica, Arial, sans-serif' }}>
        <table role="presentation" width="100%" style={{ maxWidth: 600 }}>
          <tbody>
            <tr>
              <td style={{ padding: 24, backgroundColor: '#ffffff' }}>
                <h1 style={{ fontSize: 20 }}>Hi {name}, invoice {number} is ready</h1>
                {lines.map((line) => (
                  <p key={line.label}>
                    {line.label}: {line.amount}
                  </p>
                ))}
                <a href={url} style={{ color: '#d92d20' }}>
                  Pay the invoice
                </a>
              </td>
            </tr>
          </tbody>
        </table>
      </body>
    </html>
  );
}

describe('an email rendered from a registered React component, as it reaches an SMTP server', () => {
  it("is multipart/alternative: the component's document as the HTML part (with the preheader), a text part made from it", async () => {
    const smtp = await smtpServer();
    closers.push(smtp.close);
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [smtpProvider()], emailComponents: { InvoiceReady } });
    await tidings.integrations.upsert({ name: 'smtp', providerId: 'nodemailer', channel: 'email', credentials: { host: '127.0.0.1', port: String(smtp.port), from: 'billing@tidings.test', senderName: 'Billing', ignoreTls: true } });
    await tidings.workflows.upsert({
      name: 'invoice',
      triggers: [{ identifier: 'invoice' }],
      steps: [
        {
          template: {
            type: 'email',
            subject: 'Invoice {{ payload.number }}',
            preheader: 'Due on {{ payload.due }}',
            component: 'InvoiceReady',
            props: { name: '{{ subscriber.firstName }}', number: '{{ payload.number }}', lines: '{{ payload.lines }}', url: 'https://tidings.test/pay/{{ payload.number }}' },
          },
        },
      ],
    });
    const payload = { number: 'A-42', due: '1 July', lines: [{ label: 'Plan', amount: '$20' }, { label: 'Seats <3>', amount: '$5' }] };
    await tidings.trigger({ name: 'invoice', to: { subscriberId: 'ana', firstName: 'Ana', email: 'ana@example.test' }, payload });
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(1);
    const raw = smtp.mails[0]!.raw;
    expect(raw).toMatch(/Content-Type: multipart\/alternative/i);
    const mail = await simpleParser(raw);
    expect(mail.subject).toBe('Invoice A-42');
    const html = String(mail.html);
    expect(html).toMatch(/^<!DOCTYPE html/);
    expect(html).toMatch(/<html lang="en" dir="ltr">/);
    expect(html).toMatch(/<div data-tidings-preheader[^>]*>Due on 1 July/);
    expect(html).toContain('<h1 style="font-size:20px">Hi <!-- -->Ana<!-- -->, invoice <!-- -->A-42<!-- --> is ready</h1>');
    expect(html).toContain('<p>Seats &lt;3&gt;<!-- -->: <!-- -->$5</p>');
    expect(html).toContain('<a href="https://tidings.test/pay/A-42" style="color:#d92d20">Pay the invoice</a>');
    expect(mail.text).toContain('Hi Ana, invoice A-42 is ready');
    expect(mail.text).toContain('Seats <3>: $5');
    expect(mail.text).toContain('Pay the invoice (https://tidings.test/pay/A-42)');
    expect(mail.text).not.toContain('Due on 1 July');
    // What was sent is what the preview shows, byte for byte.
    const preview = await tidings.preview({ workflowId: 'invoice', subscriberId: 'ana', payload });
    expect(preview.steps[0]!.html).toBe(html);
  });
});
