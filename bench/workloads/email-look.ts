import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createTidings, type WorkflowInput } from '@tidings/core';
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

/** Emails a second, from the first trigger until the sink has every email. */
async function run(dir: string, laidOut: boolean, calls: number): Promise<number> {
  const sink = await smtpSink();
  const storage = sqliteStorage({ filename: join(dir, `${freshName('email')}.db`) });
  const tidings = createTidings({ storage, providers: [smtpProvider()], onError: (error) => console.error('[bench]', error), ...(laidOut && { translations: TRANSLATIONS }) });
  try {
    await tidings.integrations.upsert({ name: 'Sink', identifier: 'sink', providerId: 'nodemailer', channel: 'email', primary: true, active: true, credentials: { host: '127.0.0.1', port: String(sink.port), from: 'bench@tidings.test', ignoreTls: true } });
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
  const calls = ctx.quick ? 3 : 10;
  await run(dir, true, 1);
  await run(dir, false, 1);
  const plain: number[] = [];
  const laidOut: number[] = [];
  for (let i = 0; i < ctx.runs; i++) {
    plain.push(await run(dir, false, calls));
    laidOut.push(await run(dir, true, calls));
  }
  const base = summarize(plain);
  const measured = summarize(laidOut);
  const ratio = measured.median / base.median;
  ctx.log(`  bulk email, SQLite, to an SMTP sink: plain ${Math.round(base.median)}/s, with an MJML layout, a brand and translations ${Math.round(measured.median)}/s (${(ratio * 100).toFixed(0)}%)`);
  return [
    {
      workload: `bulk email to a local SMTP sink, SQLite, ${calls} calls of 100 events: with an MJML layout, a brand and translations, against the same email without them`,
      backend: 'sqlite (email)',
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
    },
  ];
}
