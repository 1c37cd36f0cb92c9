import { TidingsError } from '@tidings/core';
import { inputHazards } from '@tidings/core/internal';
import { MAX_ID_LENGTH } from '@tidings/core/schemas';
import { z } from 'zod';

/** Path parameters are ids and keys: the same limits as in bodies (length, no NUL or unpaired surrogates). */
export function checkedParams(params: Record<string, string>): Record<string, string> {
  const issues = inputHazards(params);
  for (const [name, value] of Object.entries(params)) if (value.length > MAX_ID_LENGTH) issues.push({ path: name, message: `must be at most ${MAX_ID_LENGTH} characters` });
  if (issues.length > 0) throw new TidingsError('validation_failed', `Invalid path: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  return params;
}

/** A query parameter holding a whole number from `min` to `max`, read as that number. */
export const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be a whole number from ${min} to ${max}`).max(max, `must be a whole number from ${min} to ${max}`));
