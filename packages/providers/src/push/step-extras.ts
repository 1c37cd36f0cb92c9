import type { JsonObject, ProviderMessage } from '@tidings/core';

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a code workflow's push step returned beside its title and body (`ProviderMessage.data`), read
 * by the names Novu's push outputs and node-apn use: a `badge` count, a `sound` name, and `data`, the
 * custom keys the app receives (in place of the trigger's payload).
 */
export interface PushStepExtras {
  readonly badge?: number;
  readonly sound?: string;
  readonly data?: JsonObject;
}

export function pushStepExtras(message: ProviderMessage): PushStepExtras {
  const given = message.data ?? {};
  return {
    ...(typeof given['badge'] === 'number' && Number.isInteger(given['badge']) && given['badge'] >= 0 && { badge: given['badge'] }),
    ...(typeof given['sound'] === 'string' && given['sound'] !== '' && { sound: given['sound'] }),
    ...(isObject(given['data']) && { data: given['data'] }),
  };
}
