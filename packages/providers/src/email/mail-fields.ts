import type { Attachment } from 'nodemailer/lib/mailer/index.js';
import { ProviderError, type Credentials, type EmailAttachment, type ProviderMessage } from '@tidings/core';

/** Who one email goes to and comes from: the message's addressing over the integration's sender. */
export interface MailEnvelope {
  /** The subscriber's address first, then the trigger's `overrides.email.to`. */
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  /** `overrides.email.from`, else the integration's `from` (may be absent for SMTP only). */
  readonly from: string | undefined;
  readonly senderName: string | undefined;
  readonly replyTo: string | undefined;
  /** Headers the message carries (one-click unsubscribe's), by name; empty when none. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The envelope of a message: its `email` addressing (the trigger's overrides, see `EmailAddressing`)
 * with the integration's `from` and `senderName` where the overrides give none; a message without
 * `email` goes to `to.email` alone.
 */
export function envelopeOf(message: ProviderMessage, credentials: Credentials): MailEnvelope {
  const email = message.email;
  return {
    to: email?.to.length ? email.to : message.to.email ? [message.to.email] : [],
    cc: email?.cc ?? [],
    bcc: email?.bcc ?? [],
    from: email?.from ?? credentials.from,
    senderName: email?.senderName ?? credentials.senderName,
    replyTo: email?.replyTo,
    headers: message.headers ?? {},
  };
}

/**
 * Checks what every email service needs before a request: the named credentials (a final error names
 * each one missing; `from` is not needed when the trigger's overrides give it), and the recipient's
 * address. Returns the envelope (see `envelopeOf`), whose `from` is then set.
 */
export function checkMail(service: string, message: ProviderMessage, credentials: Credentials, names: readonly (keyof Credentials)[]): MailEnvelope & { from: string } {
  const missing = names.filter((name) => !credentials[name] && !(name === 'from' && message.email?.from));
  if (missing.length > 0) throw new ProviderError(`the ${service} integration has no ${missing.join(', ')}`, { retryable: false, code: 'missing_credentials' });
  if (!message.to.email) throw new ProviderError('the subscriber has no email address', { retryable: false, code: 'missing_email' });
  const envelope = envelopeOf(message, credentials);
  return { ...envelope, from: envelope.from ?? '' };
}

/** `Name <address>`, the name quoted when it holds characters that mean something in an address. */
export function mailbox(address: string, name: string | undefined): string {
  if (!name) return address;
  return `${/[()<>[\]:;@\\,."]/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : name} <${address}>`;
}

/** Headers as the `[{ Name, Value }]` list Postmark and SES take. */
export const headerList = (headers: Readonly<Record<string, string>>) => Object.entries(headers).map(([Name, Value]) => ({ Name, Value }));

export const hasHeaders = (headers: Readonly<Record<string, string>>) => Object.keys(headers).length > 0;

/** A file as the JSON email APIs take it: its bytes in base64, and the Content-ID an inline one is shown by. */
export interface Base64File {
  readonly filename: string;
  readonly contentType: string;
  readonly base64: string;
  readonly inline: boolean;
  /** The attachment's `cid`; an inline file without one is named by its file name. */
  readonly contentId: string | undefined;
}

/** The Content-ID a file is shown by in the HTML: its `cid`, else its file name when it is inline. */
export const contentIdOf = (file: EmailAttachment) => file.cid ?? (file.disposition === 'inline' ? file.filename : undefined);

/** The message's files (`ProviderMessage.attachments`) in base64; none when it has none. */
export function base64Files(message: ProviderMessage): Base64File[] {
  return (message.attachments ?? []).map((file) => ({
    filename: file.filename,
    contentType: file.contentType,
    base64: Buffer.from(file.content).toString('base64'),
    inline: file.disposition === 'inline',
    contentId: contentIdOf(file),
  }));
}

/** The message's files as nodemailer's `attachments` (SMTP, and SES's raw MIME); undefined when it has none. */
export function nodemailerFiles(message: ProviderMessage): Attachment[] | undefined {
  if (!message.attachments?.length) return undefined;
  return message.attachments.map((file) => ({
    filename: file.filename,
    content: Buffer.from(file.content),
    contentType: file.contentType,
    contentDisposition: file.disposition,
    ...(file.cid !== undefined && { cid: file.cid }),
  }));
}
