import { z } from 'zod';

const identifier = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, "-", "_" or "." (starting with a letter or digit)');

/** A layout as given: HTML or MJML around the step's body, which goes where `{{ content }}` is. */
export const layoutInputSchema = z.strictObject({
  identifier,
  name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
  /** `html` or `mjml`; guessed from the content when absent (`<mjml` at its start). */
  type: z.enum(['html', 'mjml']).optional(),
  content: z.string().min(1, 'must not be empty').max(500_000, 'must be at most 500,000 characters'),
  /** The environment's default layout: every email step without a layout of its own uses it. */
  isDefault: z.boolean().optional(),
});
export type LayoutInput = z.input<typeof layoutInputSchema>;

/** A stored layout: the source as given and the HTML it compiles to (MJML is compiled once, when it is saved). */
export const layoutSchema = z.object({
  identifier: z.string(),
  name: z.string(),
  type: z.enum(['html', 'mjml']),
  content: z.string(),
  /** The HTML template the emails are rendered from (liquid, with the `{{ content }}` slot). */
  html: z.string(),
  isDefault: z.boolean(),
  /** Counted from 1, one more at each change (see `layouts.history`); saving what is stored changes nothing. */
  revision: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Layout = z.infer<typeof layoutSchema>;

const color = z
  .string()
  .trim()
  .regex(/^(#[0-9a-fA-F]{3,8}|[a-zA-Z]+|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\))$/, 'must be a CSS colour: #rrggbb, a name or rgb(…)');

export const brandColorsSchema = z.strictObject({
  primary: color.optional(),
  background: color.optional(),
  text: color.optional(),
  link: color.optional(),
});

const httpUrl = z
  .string()
  .trim()
  .url('must be a URL')
  .refine((url) => /^https?:\/\//i.test(url), 'must be an http(s) URL');

/**
 * A brand as given: the environment's default (no `tenant`) or one tenant's. A tenant's brand is
 * laid over the default member by member, so it names only what differs.
 */
export const brandInputSchema = z.strictObject({
  /** The tenant this brand is for; absent for the environment's default brand. */
  tenant: identifier.optional(),
  name: z.string().trim().max(200).optional(),
  logoUrl: httpUrl.optional(),
  colors: brandColorsSchema.optional(),
  /** The sender name of its emails, unless the step or the trigger's overrides name one. */
  fromName: z.string().trim().min(1, 'must not be empty').max(200).optional(),
  /** Reply-To of its emails, unless the trigger's overrides give one. */
  replyTo: z.string().trim().email('must be an email address').optional(),
  /** Text for the layouts' footer (`{{ brand.footer }}`). */
  footer: z.string().max(5_000).optional(),
  /** The layout of its emails; `null`: none (the bare body), absent: the environment's default. */
  layoutId: identifier.nullable().optional(),
  /** Free data for templates (`{{ brand.data.… }}`). */
  data: z.record(z.string(), z.unknown()).optional(),
});
export type BrandInput = z.input<typeof brandInputSchema>;
export type Brand = z.infer<typeof brandInputSchema> & { readonly updatedAt: string };

/** A partial as given: a liquid template that layouts and email steps include with `{% render 'name', … %}`. */
export const partialInputSchema = z.strictObject({
  identifier,
  content: z.string().max(100_000, 'must be at most 100,000 characters'),
});
export type PartialInput = z.input<typeof partialInputSchema>;
export type Partial = z.infer<typeof partialInputSchema> & { readonly revision: number; readonly updatedAt: string };
