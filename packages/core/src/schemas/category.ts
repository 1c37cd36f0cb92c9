import { z } from 'zod';
import { isoInstantSchema } from './enums.js';

/** A category's key: `marketing`, `product-updates`, … (lower case, digits, `-`, `_`, `.`). */
export const categoryKeySchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lower-case letters, digits, ".", "_" or "-", starting with a letter or digit');

/**
 * What an email's one-click unsubscribe (List-Unsubscribe) opts out of: the workflow's category, the
 * workflow alone, or nothing (no headers).
 */
export const unsubscribeScopeSchema = z.enum(['category', 'workflow', 'none']);
export type UnsubscribeScope = z.infer<typeof unsubscribeScopeSchema>;

/** `categories.upsert(key, input)`: how a category shows on the preference page, and its unsubscribe default. */
export const categoryInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters').optional(),
  description: z.string().trim().max(500, 'must be at most 500 characters').optional(),
  /** The unsubscribe scope of the category's workflows that set none. */
  unsubscribe: unsubscribeScopeSchema.optional(),
});
export type CategoryInput = z.input<typeof categoryInputSchema>;

export const categorySchema = z.object({
  key: z.string(),
  name: z.string(),
  description: z.string().optional(),
  unsubscribe: unsubscribeScopeSchema.optional(),
  updatedAt: isoInstantSchema,
});
export type Category = z.infer<typeof categorySchema>;
