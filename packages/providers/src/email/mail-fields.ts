import { ProviderError, type Credentials, type ProviderMessage } from '@tidings/core';

/**
 * Checks what every email service needs before a request: the named credentials (a final error names
 * each one missing), and the recipient's address, which it returns.
 */
export function checkMail(service: string, message: ProviderMessage, credentials: Credentials, names: readonly (keyof Credentials)[]): string {
  const missing = names.filter((name) => !credentials[name]);
  if (missing.length > 0) throw new ProviderError(`the ${service} integration has no ${missing.join(', ')}`, { retryable: false, code: 'missing_credentials' });
  if (!message.to.email) throw new ProviderError('the subscriber has no email address', { retryable: false, code: 'missing_email' });
  return message.to.email;
}

/** `Name <address>`, the name quoted when it holds characters that mean something in an address. */
export function mailbox(address: string, name: string | undefined): string {
  if (!name) return address;
  return `${/[()<>[\]:;@\\,."]/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : name} <${address}>`;
}
