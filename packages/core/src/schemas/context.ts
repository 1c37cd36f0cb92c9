import { z } from 'zod';
import { isoInstantSchema, jsonObjectSchema } from './enums.js';

/** The most contexts one trigger carries (Novu's limit). */
export const MAX_CONTEXTS_PER_TRIGGER = 5;

const CONTEXT_PART = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const partSchema = (what: string) =>
  z
    .string({ error: `is required: the context's ${what}` })
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .regex(CONTEXT_PART, 'must be lower-case letters and digits, optionally separated by ".", "_" or "-"');

/** A context's type: `tenant`, `app`, `workspace`, … */
export const contextTypeSchema = partSchema('type');
/** A context's id within its type: `acme`, `org-42`, … */
export const contextIdSchema = partSchema('id');

/** One context of a trigger: its id, or its id and data (which the trigger stores as the context's). */
export const contextValueSchema = z.union([contextIdSchema, z.strictObject({ id: contextIdSchema, data: jsonObjectSchema.optional() })], {
  error: 'must be a context id or { id, data }',
});

/**
 * The contexts a trigger (or an Inbox session, or a feed filter) names, by type: `{ tenant: 'acme',
 * app: { id: 'jira', data: { … } } }`, at most MAX_CONTEXTS_PER_TRIGGER of them.
 */
export const contextPayloadSchema = z
  .record(z.string(), contextValueSchema)
  .superRefine((payload, ctx) => {
    const types = Object.keys(payload);
    if (types.length > MAX_CONTEXTS_PER_TRIGGER) ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_CONTEXTS_PER_TRIGGER} contexts` });
    for (const type of types) {
      const checked = contextTypeSchema.safeParse(type);
      if (!checked.success) ctx.addIssue({ code: 'custom', path: [type], message: `is not a context type: ${checked.error.issues[0]!.message}` });
    }
  });
export type ContextPayload = z.input<typeof contextPayloadSchema>;

/** Each context as a run sees it (Novu's resolved form): `{ tenant: { id: 'acme', data: { … } } }`. */
export type ResolvedContext = Record<string, { id: string; data: Record<string, unknown> }>;

/** A stored context, reusable by id: a trigger that names it alone reads its data. */
export const storedContextSchema = z.object({
  type: z.string(),
  id: z.string(),
  data: jsonObjectSchema,
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
});
export type StoredContext = z.infer<typeof storedContextSchema>;

/** `contexts.create(input)`. */
export const contextInputSchema = z.strictObject({ type: contextTypeSchema, id: contextIdSchema, data: jsonObjectSchema.default({}) });
export type ContextInput = z.input<typeof contextInputSchema>;

/** `contexts.update(type, id, input)`: the data replaces the stored data. */
export const contextUpdateSchema = z.strictObject({ data: jsonObjectSchema });
export type ContextUpdate = z.input<typeof contextUpdateSchema>;
