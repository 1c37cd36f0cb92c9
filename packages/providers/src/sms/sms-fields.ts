import { ProviderError, type Credentials, type JsonObject, type ProviderMessage } from '@tidings/core';

type StringCredential = { [K in keyof Credentials]-?: NonNullable<Credentials[K]> extends string ? K : never }[keyof Credentials];

/** The named credentials, or a final error naming every one that is missing. */
export function requireCredentials<K extends StringCredential>(service: string, credentials: Credentials, names: readonly K[]): Record<K, string> {
  const missing = names.filter((name) => !credentials[name]);
  if (missing.length > 0) {
    throw new ProviderError(`${service}: the integration has no ${missing.join(', ')} credential${missing.length > 1 ? 's' : ''}`, { retryable: false, code: 'missing_credentials' });
  }
  return Object.fromEntries(names.map((name) => [name, credentials[name]])) as Record<K, string>;
}

/** The recipient's phone number, or a final error saying it is missing. */
export function recipientPhone(service: string, message: ProviderMessage): string {
  const phone = message.to.phone?.trim();
  if (!phone) throw new ProviderError(`${service}: the recipient has no phone number`, { retryable: false, code: 'missing_phone' });
  return phone;
}

/**
 * The trigger's overrides for the provider as form fields, named as the service names them (`name`
 * maps a key, e.g. Novu's camelCase to the service's PascalCase). Only strings, numbers, booleans and
 * arrays of them can be form-encoded; other values are left out.
 */
export function overrideFields(overrides: JsonObject, name: (key: string) => string = (key) => key): [string, string][] {
  const fields: [string, string][] = [];
  for (const [key, value] of Object.entries(overrides)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') fields.push([name(key), String(item)]);
    }
  }
  return fields;
}

/** `statusCallback` → `StatusCallback`. */
export const pascalCase = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);

/**
 * The form body: the provider's own fields, replaced by the trigger's overrides of the same name,
 * except `kept` (credentials and the like), which overrides never touch.
 */
export function formBody(own: Record<string, string | undefined>, overrides: [string, string][], kept: readonly string[] = []): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(own)) if (value !== undefined) form.set(key, value);
  const overridden = new Set<string>();
  for (const [key, value] of overrides) {
    if (kept.includes(key)) continue;
    if (!overridden.has(key)) form.delete(key);
    overridden.add(key);
    form.append(key, value);
  }
  return form.toString();
}

/**
 * A service's error code as an errorId: a number, or a short token. Anything else from the far side
 * is dropped, so no free text of the answer ends up stored.
 */
export function serviceCode(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(value) ? value : undefined;
}

export { baseUrlOf, requestOptions } from '../service-options.js';
