import { z } from 'zod';
import { actionStatusSchema, buttonTypeSchema, jsonObjectSchema, redirectTargetSchema } from './enums.js';

export const emailBlockSchema = z.strictObject({
  type: z.enum(['button', 'text']),
  content: z.string(),
  url: z.string().optional(),
  styles: z.strictObject({ textAlign: z.enum(['center', 'left', 'right']) }).optional(),
});
export type EmailBlock = z.infer<typeof emailBlockSchema>;

export const actionButtonSchema = z.strictObject({
  type: buttonTypeSchema,
  content: z.string(),
  resultContent: z.string().optional(),
  /** Where the button leads (a template, rendered per message): `http(s)://…` or a path starting with one `/`. */
  url: z.string().optional(),
  target: redirectTargetSchema.optional(),
});
export type ActionButton = z.infer<typeof actionButtonSchema>;

export const messageActionSchema = z.strictObject({
  status: actionStatusSchema.optional(),
  buttons: z.array(actionButtonSchema).optional(),
  result: z
    .object({
      payload: jsonObjectSchema.optional(),
      type: buttonTypeSchema.optional(),
    })
    .optional(),
});
export type MessageAction = z.infer<typeof messageActionSchema>;

export const messageCtaSchema = z.strictObject({
  type: z.literal('redirect').optional(),
  data: z.strictObject({ url: z.string().optional(), target: redirectTargetSchema.optional() }).optional(),
  action: messageActionSchema.optional(),
});
export type MessageCta = z.infer<typeof messageCtaSchema>;
