import { cadenceOfferSchema, type CadenceOffer } from '@tidings/core/schemas';

/** A digest step's `cadence` option, checked: the cadences its subscribers choose from, or why it is refused. */
export function cadenceOption(value: unknown): { ok: true; cadence: CadenceOffer } | { ok: false; error: string } {
  const parsed = cadenceOfferSchema.safeParse(value);
  if (parsed.success) return { ok: true, cadence: parsed.data };
  return { ok: false, error: parsed.error.issues.map((i) => `cadence${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${i.message}`).join('; ') };
}
