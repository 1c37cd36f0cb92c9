import { ProviderError, type Credentials, type Provider } from '@tidings/core';
import { envelopeOf, nodemailerFiles } from './email/mail-fields.js';
import { smtpTransports, type SmtpPoolOptions } from './email/smtp-pool.js';

const RETRYABLE_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'ECONNREFUSED', 'ECONNRESET', 'EDNS']);

export interface SmtpProviderOptions {
  /** Connection, greeting and socket timeouts in ms. @default 10_000 */
  readonly timeoutMs?: number;
  /**
   * Reuse connections (nodemailer's pool): one pool per server and login, of up to `maxConnections`
   * connections that each send `maxMessages` before they are replaced, closed after `idleMs` without
   * a send and when the engine stops (`close()`). `false` opens a connection per message.
   * @default { maxConnections: 5, maxMessages: 100, idleMs: 1_000 }
   */
  readonly pool?: SmtpPoolOptions | false;
  /**
   * The name of a header that carries the message's transactionId (such as `X-Tidings-Transaction`),
   * for finding a trigger's emails in your mail server's logs. Recipients see it, so it is off unless
   * named. @default none
   */
  readonly transactionHeader?: string;
}

/**
 * Email over SMTP with nodemailer (`providerId: 'nodemailer'`). Credentials: `host`, `port`, `secure`,
 * `user`, `password`, `from`, `senderName`, `requireTls`, `ignoreTls`, `tlsOptions`. The subscriber's
 * name goes with their address in `To:`; the trigger's `overrides.email` go to nodemailer's `to`,
 * `cc`, `bcc`, `from` and `replyTo` (the step's Reply-To, Cc and Bcc before them), headers and
 * attachments as the message carries them. Connections are pooled (see `pool`). Connection failures
 * and 4xx SMTP replies are retried; 5xx replies are permanent.
 */
export function smtpProvider(options: SmtpProviderOptions = {}): Provider {
  const transports = smtpTransports(options.timeoutMs ?? 10_000, options.pool ?? {});
  const transactionHeader = options.transactionHeader;
  if (transactionHeader !== undefined && !/^[!-9;-~]{1,76}$/.test(transactionHeader)) throw new TypeError('smtpProvider: transactionHeader must be a header name (printable ASCII, no colon or space)');
  return {
    id: 'nodemailer',
    channel: 'email',
    attachments: true,
    close: () => transports.close(),
    async send(message, credentials: Credentials) {
      if (!credentials.host) throw new ProviderError('the SMTP integration has no host', { retryable: false, code: 'missing_host' });
      const mail = envelopeOf(message, credentials);
      const from = mail.from ?? credentials.user ?? 'tidings@localhost';
      const name = message.to.name;
      // The subscriber's own address carries their name; the overrides' addresses go as given.
      const to = mail.to.map((address) => (name && address === message.to.email ? { name, address } : address));
      const headers = { ...(transactionHeader && { [transactionHeader]: message.transactionId }), ...mail.headers };
      try {
        // nodemailer puts every to, cc and bcc address in the envelope, and leaves Bcc out of the headers.
        const info = await transports.withTransport(credentials, (transport) =>
          transport.sendMail({
            from: mail.senderName ? { name: mail.senderName, address: from } : from,
            to,
            ...(mail.cc.length > 0 && { cc: [...mail.cc] }),
            ...(mail.bcc.length > 0 && { bcc: [...mail.bcc] }),
            ...(mail.replyTo && { replyTo: mail.replyTo }),
            subject: message.subject ?? '',
            text: message.content,
            ...(message.html !== undefined && { html: message.html }),
            ...(Object.keys(headers).length > 0 && { headers }),
            ...(message.attachments?.length && { attachments: nodemailerFiles(message) }),
          }),
        );
        return { id: info.messageId };
      } catch (error) {
        const e = error as { code?: string; responseCode?: number; message?: string };
        const retryable = (e.code !== undefined && RETRYABLE_CODES.has(e.code)) || (e.responseCode !== undefined && e.responseCode < 500);
        throw new ProviderError(`SMTP: ${e.message ?? String(error)}`, {
          retryable,
          ...(e.responseCode !== undefined && { status: e.responseCode }),
          code: e.code ?? 'smtp_error',
          cause: error,
        });
      }
    },
  };
}
