/**
 * The SMTP provider against a real local SMTP server: pooled connections (and their closing), the
 * subscriber's name in To:, no transaction header unless asked, and what the step and the trigger add
 * to an email (Reply-To, Cc, Bcc, headers, attachments), read back from the MIME the server received.
 */
import { createTidings, type WorkflowInput } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { smtpProvider, type SmtpProviderOptions } from '../src/index.js';
import { eventually } from '../../http/test/eventually.js';
import { smtpServer } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(options: SmtpProviderOptions = {}, template: Record<string, unknown> = {}) {
  const smtp = await smtpServer();
  const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [smtpProvider({ timeoutMs: 3_000, ...options })] });
  // The engine first (its stop closes the pool), then the server.
  closers.push(smtp.close);
  closers.unshift(() => tidings.stop());
  await tidings.integrations.upsert({ identifier: 'smtp', providerId: 'nodemailer', channel: 'email', primary: true, credentials: { host: '127.0.0.1', port: smtp.port, from: 'noreply@tidings.test', senderName: 'Tidings', ignoreTls: 'true' } });
  const workflow: WorkflowInput = { name: 'Invoice', triggers: [{ identifier: 'invoice' }], steps: [{ template: { type: 'email', subject: 'Your invoice', content: '<p>Invoice {{ payload.number }}</p>', ...template } }] };
  await tidings.workflows.upsert(workflow);
  return { smtp, tidings };
}

describe('SMTP connections', () => {
  it('are pooled: twenty emails go over at most maxConnections connections, which the engine closes when it stops', async () => {
    const { smtp, tidings } = await setup({ pool: { maxConnections: 2, idleMs: 60_000 } });
    await tidings.triggerBulk(Array.from({ length: 20 }, (_, n) => ({ name: 'invoice', to: { subscriberId: `s${n}`, email: `s${n}@example.test` }, payload: { number: n } })));
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(20);
    expect(smtp.connections()).toBeGreaterThanOrEqual(1);
    expect(smtp.connections()).toBeLessThanOrEqual(2);
    expect(smtp.open()).toBeGreaterThanOrEqual(1);
    await tidings.stop();
    await eventually(async () => (smtp.open() === 0 ? true : undefined), 'the pool to close');
    // A send after the stop opens anew.
    await tidings.trigger({ name: 'invoice', to: { subscriberId: 'late', email: 'late@example.test' }, payload: { number: 21 } });
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(21);
  });

  it('close on their own after idleMs without a send; with pool: false, each email has a connection of its own', async () => {
    const idle = await setup({ pool: { idleMs: 20 } });
    await idle.tidings.trigger({ name: 'invoice', to: { subscriberId: 'ada', email: 'ada@example.test' }, payload: { number: 1 } });
    await idle.tidings.runDue();
    expect(idle.smtp.mails).toHaveLength(1);
    await eventually(async () => (idle.smtp.open() === 0 ? true : undefined), 'the idle pool to close');

    const single = await setup({ pool: false });
    await single.tidings.triggerBulk(Array.from({ length: 3 }, (_, n) => ({ name: 'invoice', to: { subscriberId: `s${n}`, email: `s${n}@example.test` }, payload: { number: n } })));
    await single.tidings.runDue();
    expect(single.smtp.mails).toHaveLength(3);
    expect(single.smtp.connections()).toBe(3);
  });
});

describe('what an SMTP email carries', () => {
  it("To: holds the subscriber's name with their address; no X-Tidings-Transaction unless transactionHeader names a header", async () => {
    const plain = await setup();
    const sent = await plain.tidings.trigger({ name: 'invoice', to: { subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' }, payload: { number: 1 } });
    await plain.tidings.runDue();
    const mail = await simpleParser(plain.smtp.mails[0]!.raw);
    expect(mail.to).toMatchObject({ value: [{ name: 'Ada Lovelace', address: 'ada@example.test' }] });
    expect(mail.headers.has('x-tidings-transaction')).toBe(false);

    const tagged = await setup({ transactionHeader: 'X-Tidings-Transaction' });
    await tagged.tidings.trigger({ name: 'invoice', to: { subscriberId: 'bob', email: 'bob@example.test' }, payload: { number: 2 }, transactionId: sent.transactionId! + '-2' });
    await tagged.tidings.runDue();
    const second = await simpleParser(tagged.smtp.mails[0]!.raw);
    expect(second.headers.get('x-tidings-transaction')).toBe(`${sent.transactionId!}-2`);
    expect(second.to).toMatchObject({ value: [{ name: '', address: 'bob@example.test' }] });
    expect(() => smtpProvider({ transactionHeader: 'X Tidings' })).toThrow(/transactionHeader must be a header name/);
  });

  it("the step's Reply-To, Cc, Bcc and headers (liquid), the trigger's headers over them, and payload.attachments as MIME parts", async () => {
    const { smtp, tidings } = await setup(
      {},
      { replyTo: 'billing+{{ subscriber.subscriberId }}@tidings.test', cc: 'accounts@example.test', bcc: ['audit@example.test'], headers: { 'X-Invoice': '{{ payload.number }}', 'X-Campaign': 'step' } },
    );
    const pdf = Buffer.from('%PDF-1.4 invoice 1042');
    const logo = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    await tidings.trigger({
      name: 'invoice',
      to: { subscriberId: 'ada', email: 'ada@example.test' },
      payload: {
        number: 1042,
        attachments: [
          { file: pdf.toString('base64'), name: 'invoice-1042.pdf', mime: 'application/pdf' },
          { file: logo.toString('base64'), name: 'logo.png', mime: 'image/png', cid: 'logo' },
          { file: Buffer.from('not for email').toString('base64'), name: 'sms.txt', mime: 'text/plain', channels: ['sms'] },
        ],
      },
      overrides: { email: { headers: { 'X-Campaign': 'spring' }, cc: ['boss@example.test'] } },
    });
    await tidings.runDue();
    expect(smtp.mails).toHaveLength(1);
    const [received] = smtp.mails;
    expect(received!.to).toEqual(['ada@example.test', 'accounts@example.test', 'boss@example.test', 'audit@example.test']);
    const mail = await simpleParser(received!.raw);
    expect(mail.replyTo).toMatchObject({ value: [{ address: 'billing+ada@tidings.test' }] });
    expect(mail.cc).toMatchObject({ value: [{ address: 'accounts@example.test' }, { address: 'boss@example.test' }] });
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.headers.get('x-invoice')).toBe('1042');
    expect(mail.headers.get('x-campaign')).toBe('spring');
    // The inline image goes in the HTML's related part, the file beside the body: sorted by name here.
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.contentDisposition, a.cid ?? null, a.content.toString('base64')]).sort()).toEqual([
      ['invoice-1042.pdf', 'application/pdf', 'attachment', null, pdf.toString('base64')],
      ['logo.png', 'image/png', 'inline', 'logo', logo.toString('base64')],
    ]);
    expect(mail.text).toContain('Invoice 1042');
  });
});
