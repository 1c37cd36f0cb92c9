import { ProviderError, type Credentials, type Provider } from '@tidings/core';
import nodemailer from 'nodemailer';
import { envelopeOf } from './email/mail-fields.js';

const RETRYABLE_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'ECONNREFUSED', 'ECONNRESET', 'EDNS']);

export interface SmtpProviderOptions {
  /** Connection, greeting and socket timeouts in ms. @default 10_000 */
  readonly timeoutMs?: number;
}

/**
 * Email over SMTP with nodemailer (`providerId: 'nodemailer'`). Credentials: `host`, `port`, `secure`,
 * `user`, `password`, `from`, `senderName`, `requireTls`, `ignoreTls`. The trigger's `overrides.email`
 * go to nodemailer's `to`, `cc`, `bcc`, `from` and `replyTo`. Connection failures and 4xx SMTP
 * replies are retried; 5xx replies are permanent.
 */
export function smtpProvider(options: SmtpProviderOptions = {}): Provider {
  const timeout = options.timeoutMs ?? 10_000;
  return {
    id: 'nodemailer',
    channel: 'email',
    async send(message, credentials: Credentials) {
      if (!credentials.host) throw new ProviderError('the SMTP integration has no host', { retryable: false, code: 'missing_host' });
      const transport = nodemailer.createTransport({
        host: credentials.host,
        port: credentials.port ? Number(credentials.port) : 587,
        secure: credentials.secure ?? false,
        ...(credentials.requireTls !== undefined && { requireTLS: credentials.requireTls }),
        ...(credentials.ignoreTls !== undefined && { ignoreTLS: credentials.ignoreTls }),
        ...(credentials.user && { auth: { user: credentials.user, pass: credentials.password ?? '' } }),
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      });
      try {
        const mail = envelopeOf(message, credentials);
        const from = mail.from ?? credentials.user ?? 'tidings@localhost';
        // nodemailer puts every to, cc and bcc address in the envelope, and leaves Bcc out of the headers.
        const info = await transport.sendMail({
          from: mail.senderName ? { name: mail.senderName, address: from } : from,
          to: [...mail.to],
          ...(mail.cc.length > 0 && { cc: [...mail.cc] }),
          ...(mail.bcc.length > 0 && { bcc: [...mail.bcc] }),
          ...(mail.replyTo && { replyTo: mail.replyTo }),
          subject: message.subject ?? '',
          text: message.content,
          ...(message.html !== undefined && { html: message.html }),
          headers: { 'X-Tidings-Transaction': message.transactionId, ...mail.headers },
        });
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
      } finally {
        transport.close();
      }
    },
  };
}
