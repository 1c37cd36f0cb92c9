import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createTidings, type Provider, type WorkflowInput } from '@tidings/core';
import { smtpProvider } from '@tidings/providers';
import { sqliteStorage } from '@tidings/sqlite';
import { summarize } from '../lib/stats.js';
import { freshName, tempDir } from '../lib/temp.js';
import type { BenchContext, Row } from './types.js';

/**
 * Bulk email through a layout, a brand and translations (ICU messages, a fallback to the default
 * locale) against the same email without them: one
 * email step per event to a local SMTP sink (nodemailer's pool against smtp-server, in this
 * process), on SQLite. Runs alternate (plain, laid out, plain, …) so both see the same machine.
 */
const LAYOUT = `<mjml>
  <mj-body background-color="{{ brand.colors.background }}">
    <mj-section><mj-column>
      <mj-image src="{{ brand.logoUrl }}" width="120px" alt="{{ brand.name }}" />
      <mj-text font-size="16px" color="{{ brand.colors.text }}">{{ content }}</mj-text>
      <mj-button background-color="{{ brand.colors.primary }}" href="https://bench.test/orders/{{ payload.n }}">View your order</mj-button>
      <mj-text font-size="12px" color="#888888">{{ brand.footer }}</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;

/** The laid-out email's texts, in the locale its subscribers have and the default they fall back to. */
const TRANSLATIONS = {
  en: { order: { subject: 'Order {n} for {name}', preheader: 'Your order {n} is on its way', hello: 'Hello {name},', shipped: '{n, plural, one {Your order # has shipped.} other {Your order # has shipped.}}', track: 'Track it' } },
  'en-GB': { order: { track: 'Follow it' } },
};

const workflow = (laidOut: boolean): WorkflowInput => ({
  name: 'Bench email',
  triggers: [{ identifier: 'bench-email' }],
  steps: [
    {
      template: {
        type: 'email',
        ...(laidOut
          ? {
              subject: "{{ 'order.subject' | t: n: payload.n, name: subscriber.firstName }}",
              preheader: "{{ 'order.preheader' | t: n: payload.n }}",
              content: "<p>{{ 'order.hello' | t: name: subscriber.firstName }}</p><p>{{ 'order.shipped' | t: n: payload.n }} <a href=\"https://bench.test/orders/{{ payload.n }}\">{{ 'order.track' | t }}</a>.</p>",
            }
          : {
              subject: 'Order {{ payload.n }} for {{ subscriber.firstName }}',
              preheader: 'Your order {{ payload.n }} is on its way',
              content: '<p>Hello {{ subscriber.firstName }},</p><p>Your order <b>{{ payload.n }}</b> has shipped. <a href="https://bench.test/orders/{{ payload.n }}">Track it</a>.</p>',
              layoutId: null,
            }),
      },
    },
  ],
});

async function smtpSink() {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received: () => received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** An email provider in this process that takes every message: what is left is the engine's own cost. */
function memorySink() {
  let received = 0;
  const provider: Provider = { id: 'bench-sink', channel: 'email', send: async (message) => (received++, { id: message.messageId }) };
  return { provider, received: () => received, close: async () => undefined };
}

type Sink = 'smtp' | 'memory';

/** Emails a second, from the first trigger until the sink has every email. */
async function run(dir: string, laidOut: boolean, calls: number, through: Sink): Promise<number> {
  const smtp = through === 'smtp' ? await smtpSink() : null;
  const memory = through === 'memory' ? memorySink() : null;
  const sink = smtp ?? memory!;
  const storage = sqliteStorage({ filename: join(dir, `${freshName('email')}.db`) });
  const tidings = createTidings({ storage, providers: [memory ? memory.provider : smtpProvider()], onError: (error) => console.error('[bench]', error), ...(laidOut && { translations: TRANSLATIONS }) });
  try {
    if (smtp) await tidings.integrations.upsert({ name: 'Sink', identifier: 'sink', providerId: 'nodemailer', channel: 'email', primary: true, active: true, credentials: { host: '127.0.0.1', port: String(smtp.port), from: 'bench@tidings.test', ignoreTls: true } });
    else await tidings.integrations.upsert({ name: 'Sink', identifier: 'sink', providerId: 'bench-sink', channel: 'email', primary: true, active: true });
    if (laidOut) {
      await tidings.layouts.upsert({ identifier: 'bench', content: LAYOUT, isDefault: true });
      await tidings.brands.upsert({ name: 'Bench', logoUrl: 'https://bench.test/logo.png', colors: { primary: '#d92d20', background: '#f4f5f7', text: '#1f2328' }, fromName: 'Bench Shop', footer: 'Bench Shop, 1 Main Street' });
    }
    await tidings.workflows.upsert(workflow(laidOut));
    let n = 0;
    const started = performance.now();
    for (let call = 0; call < calls; call++) {
      await tidings.triggerBulk(Array.from({ length: 100 }, () => ({ name: 'bench-email', to: { subscriberId: `s${++n}`, firstName: `S${n}`, email: `s${n}@bench.test`, locale: 'en-GB' }, payload: { n } })));
      await tidings.runDue();
    }
    while ((await tidings.runDue()) > 0);
    const seconds = (performance.now() - started) / 1000;
    if (sink.received() !== n) throw new Error(`email-look: the sink received ${sink.received()} emails, expected ${n}`);
    return n / seconds;
  } finally {
    await storage.close();
    await sink.close();
  }
}

export async function emailLookWorkload(ctx: BenchContext): Promise<Row[]> {
  const dir = tempDir('email-look');
  const rows: Row[] = [];
  for (const through of ['smtp', 'memory'] as const) {
    const calls = through === 'smtp' ? (ctx.quick ? 3 : 10) : ctx.quick ? 5 : 30;
    await run(dir, true, 1, through);
    await run(dir, false, 1, through);
    const plain: number[] = [];
    const laidOut: number[] = [];
    for (let i = 0; i < ctx.runs; i++) {
      plain.push(await run(dir, false, calls, through));
      laidOut.push(await run(dir, true, calls, through));
    }
    const base = summarize(plain);
    const measured = summarize(laidOut);
    const ratio = measured.median / base.median;
    const where = through === 'smtp' ? 'to a local SMTP sink' : 'to an in-process provider (the engine alone)';
    ctx.log(`  bulk email ${where}: plain ${Math.round(base.median)}/s, laid out and translated ${Math.round(measured.median)}/s (${(ratio * 100).toFixed(0)}%)`);
    rows.push({
      workload: `bulk email ${where}, SQLite, ${calls} calls of 100 events: with an MJML layout, a brand and translations, against the same email without them`,
      backend: `sqlite (email, ${through})`,
      batch: 1,
      unit: 'emails/s',
      value: measured.median,
      spread: measured.spread,
      runs: measured.runs,
      baseline: base.median,
      ratio,
      versus: 'without layout',
      target: '≥ 70% of the plain path',
      met: ratio >= 0.7,
    });
  }
  return rows;
}
