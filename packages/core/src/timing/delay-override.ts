import { timeUnitSchema } from '../schemas/enums.js';
import type { DelayOverride } from './delay-due-at.js';

/** The trigger's `overrides.delay = { amount, unit }`, when well-formed. */
export function delayOverride(overrides: Record<string, unknown>): DelayOverride | null {
  const delay = overrides['delay'];
  if (typeof delay !== 'object' || delay === null) return null;
  const { amount, unit } = delay as Record<string, unknown>;
  const parsedUnit = timeUnitSchema.safeParse(unit);
  return typeof amount === 'number' && amount >= 0 && parsedUnit.success ? { amount, unit: parsedUnit.data } : null;
}
