import { z } from 'zod';
import { categoryKeySchema } from './category.js';

/** Where signed preference and unsubscribe links point (`createTidings({ links })`). */
export const linksOptionsSchema = z.strictObject({
  /** The public address the preference pages are served under, e.g. `https://notify.example.com`. */
  baseUrl: z
    .string()
    .url('must be a URL')
    .refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL'),
  /** An address for List-Unsubscribe's mailto form (mail to it is yours to act on). */
  mailto: z.string().email('must be an email address').optional(),
});
export type LinksOptions = z.infer<typeof linksOptionsSchema>;

/** `preferences.link(subscriberId, options)`. */
export const linkOptionsSchema = z.strictObject({
  /** An unsubscribe link opts out of this workflow's email (its category's, when it has one). */
  workflowId: z.string().min(1, 'must not be empty').optional(),
  category: categoryKeySchema.optional(),
  /** The tenant whose brand the page wears. */
  tenant: z.string().min(1, 'must not be empty').optional(),
  /** Seconds until the link stops working; absent: it does not expire. */
  expiresIn: z.number().int('must be a whole number of seconds').min(60, 'must be at least 60 seconds').max(31_536_000 * 5, 'must be at most 5 years').optional(),
  /** `preferences` (the page, the default) or `unsubscribe` (one-click; needs `workflowId` or `category`). */
  purpose: z.enum(['preferences', 'unsubscribe']).optional(),
}).refine((o) => o.purpose !== 'unsubscribe' || o.workflowId !== undefined || o.category !== undefined, { path: ['workflowId'], message: 'an unsubscribe link names the workflow or category it opts out of' });
export type LinkOptions = z.input<typeof linkOptionsSchema>;
