import { MAX_ID_LENGTH, TidingsError, inputHazards } from '@tidings/core';

/** Path parameters are ids and keys: the same limits as in bodies (length, no NUL or unpaired surrogates). */
export function checkedParams(params: Record<string, string>): Record<string, string> {
  const issues = inputHazards(params);
  for (const [name, value] of Object.entries(params)) if (value.length > MAX_ID_LENGTH) issues.push({ path: name, message: `must be at most ${MAX_ID_LENGTH} characters` });
  if (issues.length > 0) throw new TidingsError('validation_failed', `Invalid path: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  return params;
}
